package io.sluice.redis;

import io.sluice.core.store.AuditEntry;
import io.sluice.core.store.KeyOverride;
import io.sluice.core.store.SharedDocument;
import io.sluice.core.store.SharedSettings;
import io.sluice.core.store.SharedSnapshot;
import io.sluice.core.store.StaleVersionException;
import io.sluice.core.store.StoreException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.resps.StreamEntry;

/**
 * The settings a fleet shares ({@link SharedSettings}) in Redis, as {@code LocalSettings} keeps them in memory, in four
 * keys of one Cluster slot (the hash tag {@code {prefix}}, whether or not the store's own keys carry it):
 * <ul>
 * <li>{@code {prefix}:_settings:version}, a counter: one more at every change (the periodic check's one read),
 * created at Redis's time in microseconds, so that a counter created again after Redis lost its data never gives a
 * version a node still holds;
 * <li>{@code {prefix}:_settings:doc}, a hash: the rules document's {@code version}, {@code text}, {@code who},
 * {@code at} (no {@code text} once it was removed);
 * <li>{@code {prefix}:_settings:overrides}, a hash: rule, {@code \0} and key id to the override ({@link #encode});
 * <li>{@code {prefix}:_settings:audit}, a stream of about {@link #AUDIT_LENGTH} entries ({@code XADD MAXLEN ~}): who,
 * at, action, rule, key, value, previous. A replaced document's previous text is kept there, so the trail holds at
 * most about {@link #AUDIT_LENGTH} times {@link #MAX_DOCUMENT_BYTES} (64 MiB).
 * </ul>
 * No rule is named {@code _settings} in a store key (a rule name starts with a letter or digit, a hashed one with
 * {@code #}), so these keys never meet a store's, raw keys and hash tag included.
 *
 * <p>Every write and {@link #read()} is one call of {@code settings.lua} ({@code EVALSHA}, the script loaded where a
 * server lacks it), so each is atomic and records its audit entry in the same step; {@link #version()} is one
 * {@code GET}, {@link #audit} one {@code XREVRANGE}. Keys are held as {@link #keyId} writes them: the store's key part,
 * a keyed hash unless raw keys are configured. Any Redis failure is a {@link StoreException}.
 */
final class RedisSettings implements SharedSettings {

    private static final System.Logger LOG = System.getLogger(RedisStore.class.getName());
    private static final String SCRIPT = ScriptLibrary.resource("settings.lua");
    private static final String SHA = ScriptLibrary.sha1(SCRIPT);
    /** Between a rule's name and a key id in a field of the overrides' hash: in neither a key id nor a policy. */
    private static final char SEPARATOR = '\0';

    private final ReconnectingClient client;
    private final ClientKeys clients;
    /** The version counter, the document, the overrides, the audit trail: {@code settings.lua}'s KEYS. */
    private final List<String> keys;

    RedisSettings(ReconnectingClient client, String prefix, ClientKeys clients) {
        this.client = client;
        this.clients = clients;
        this.keys = keys(prefix);
    }

    /** @return the keys of a prefix's settings: the version counter, the document, the overrides, the audit trail */
    static List<String> keys(String prefix) {
        String head = "{" + prefix + "}:_settings:";
        return List.of(head + "version", head + "doc", head + "overrides", head + "audit");
    }

    @Override
    public long version() {
        String v = call(redis -> redis.get(keys.get(0)));
        return v == null ? 0 : Long.parseLong(v);
    }

    @Override
    public SharedSnapshot read() {
        List<?> reply = (List<?>) run("read");
        List<?> document = (List<?>) reply.get(1);
        List<?> overrides = (List<?>) reply.get(2);
        List<KeyOverride> out = new ArrayList<>(overrides.size() / 2);
        for (int i = 0; i < overrides.size(); i += 2) {
            KeyOverride o = override((String) overrides.get(i), (String) overrides.get(i + 1));
            if (o != null) {
                out.add(o);
            }
        }
        return new SharedSnapshot((Long) reply.get(0), document(document), out);
    }

    @Override
    public SharedDocument replaceDocument(String text, long expectedVersion, String who, long nowMillis) {
        checkSize(text);
        String by = who == null ? "" : who;
        List<?> reply = (List<?>) run("document", Long.toString(expectedVersion), text == null ? "0" : "1",
                text == null ? "" : text, by, Long.toString(nowMillis));
        long version = (Long) reply.get(1);
        if ((Long) reply.get(0) == 0) {
            throw new StaleVersionException(expectedVersion, version);
        }
        return new SharedDocument(version, text, by, nowMillis);
    }

    @Override
    public KeyOverride putOverride(KeyOverride o) {
        List<?> reply = (List<?>) run("put", field(o.rule(), o.key()), encode(o), describe(o), o.who(),
                Long.toString(o.atMillis()), o.rule(), o.key(), Integer.toString(MAX_OVERRIDES));
        if ((Long) reply.get(0) == 0) {
            throw new IllegalStateException("at most " + MAX_OVERRIDES + " overrides hold at once; remove some first");
        }
        return reply.size() < 2 || reply.get(1) == null ? null : decode(o.rule(), o.key(), (String) reply.get(1));
    }

    @Override
    public KeyOverride removeOverride(String rule, String key, String who, long nowMillis) {
        Object removed = run("remove", field(rule, key), who == null ? "" : who, Long.toString(nowMillis), rule, key);
        return removed == null ? null : decode(rule, key, (String) removed);
    }

    @Override
    public void record(AuditEntry e) {
        run("record", Long.toString(e.atMillis()), e.who(), e.action().name(), e.rule(), e.key(), e.value(),
                e.previous());
    }

    @Override
    public List<AuditEntry> audit(int max) {
        List<StreamEntry> entries = call(redis -> redis.xrevrange(keys.get(3), "+", "-", max));
        List<AuditEntry> out = new ArrayList<>(entries.size());
        for (StreamEntry entry : entries) {
            Map<String, String> f = entry.getFields();
            AuditEntry.Action action = action(f.get("action"));
            if (action != null) {
                out.add(new AuditEntry(entry.getID().toString(), number(f.get("at")), f.get("who"), action,
                        f.get("rule"), f.get("key"), f.get("value"), f.get("previous")));
            }
        }
        return out;
    }

    /** @return the store's key part of {@code key}: a keyed hash, or (raw keys) the key itself when short and safe */
    @Override
    public String keyId(String key) {
        return clients.apply(key);
    }

    /** @return true: every node on this Redis shares these settings */
    @Override
    public boolean shared() {
        return true;
    }

    /**
     * @return an override as the overrides' hash holds it: {@code until|at|policy}, {@code \0} and who set it (who
     *     last, whatever it holds; a policy holds no {@code \0})
     */
    static String encode(KeyOverride o) {
        return o.untilMillis() + "|" + o.atMillis() + "|" + o.policy() + SEPARATOR + o.who();
    }

    /** @return the field of a key's override in the overrides' hash */
    static String field(String rule, String key) {
        return rule + SEPARATOR + key;
    }

    /** @return the override {@link #encode} wrote, or null when {@code value} does not read so (logged) */
    static KeyOverride decode(String rule, String key, String value) {
        try {
            int first = value.indexOf('|');
            int second = value.indexOf('|', first + 1);
            int end = value.indexOf(SEPARATOR, second + 1);
            return new KeyOverride(rule, key, value.substring(second + 1, end), Long.parseLong(value.substring(0,
                    first)), value.substring(end + 1), Long.parseLong(value.substring(first + 1, second)));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Sluice: an override in Redis does not read as one, left out (rule " + rule + ")");
            return null;
        }
    }

    /** @return an override as the audit trail shows it, as {@code LocalSettings} does and {@code settings.lua} too */
    static String describe(KeyOverride o) {
        return o.untilMillis() == 0 ? o.policy() : o.policy() + " until " + o.untilMillis();
    }

    /** @return the override of a field of the overrides' hash; null when it does not read as one */
    private static KeyOverride override(String field, String value) {
        int at = field.lastIndexOf(SEPARATOR);      // a key id holds no separator; a rule's name might
        return at < 0 ? null : decode(field.substring(0, at), field.substring(at + 1), value);
    }

    private static SharedDocument document(List<?> fields) {
        if (fields.isEmpty()) {
            return SharedDocument.NONE;
        }
        long version = 0;
        long at = 0;
        String text = null;
        String who = "";
        for (int i = 0; i < fields.size(); i += 2) {
            String value = (String) fields.get(i + 1);
            switch ((String) fields.get(i)) {
                case "version" -> version = Long.parseLong(value);
                case "text" -> text = value;
                case "who" -> who = value;
                case "at" -> at = Long.parseLong(value);
                default -> { }     // a field of a later version: not this one's
            }
        }
        return new SharedDocument(version, text, who, at);
    }

    /** @return the action an entry names; null for one this version does not know (a later version's), left out */
    private static AuditEntry.Action action(String name) {
        for (AuditEntry.Action a : AuditEntry.Action.values()) {
            if (a.name().equals(name)) {
                return a;
            }
        }
        return null;
    }

    private static long number(String text) {
        try {
            return text == null ? 0 : Long.parseLong(text);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** As {@code LocalSettings.checkSize}: a document of at most {@link #MAX_DOCUMENT_BYTES} bytes of UTF-8. */
    static void checkSize(String text) {
        if (text != null && (text.length() > MAX_DOCUMENT_BYTES
                || text.getBytes(StandardCharsets.UTF_8).length > MAX_DOCUMENT_BYTES)) {
            throw new IllegalArgumentException("a shared rules document holds at most " + MAX_DOCUMENT_BYTES
                    + " bytes of UTF-8");
        }
    }

    /** One call of {@code settings.lua} in {@code mode}: loaded first where the server lacks it ({@code NOSCRIPT}). */
    private Object run(String mode, String... arguments) {
        List<String> args = new ArrayList<>(arguments.length + 2);
        args.add(mode);
        args.add(Integer.toString(AUDIT_LENGTH));
        args.addAll(List.of(arguments));
        return call(redis -> {
            try {
                return redis.evalsha(SHA, keys, args);
            } catch (JedisNoScriptException e) {
                // answered before the script starts: nothing ran
                redis.scriptLoad(SCRIPT, keys.get(0));
                return redis.evalsha(SHA, keys, args);
            }
        });
    }

    private <T> T call(Function<UnifiedJedis, T> command) {
        UnifiedJedis redis = client.get();
        try {
            return command.apply(redis);
        } catch (JedisException | ClassCastException e) {
            client.dropIfReadOnly(e, redis);
            throw new StoreException("Redis call of the shared settings failed (" + client.description() + "): "
                    + e.getMessage(), e);
        }
    }
}
