package io.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.sluice.core.policy.Policy;
import io.sluice.core.store.AuditEntry;
import io.sluice.core.store.AuditEntry.Action;
import io.sluice.core.store.Check;
import io.sluice.core.store.KeyOverride;
import io.sluice.core.store.SharedDocument;
import io.sluice.core.store.SharedSettings;
import io.sluice.core.store.SharedSnapshot;
import io.sluice.core.store.StaleVersionException;
import io.sluice.core.store.StoreException;
import io.sluice.core.testing.ManualTimeSource;
import io.sluice.core.testing.RedisProcess;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * The settings a fleet shares, in a real Redis: each operation as {@code LocalSettings} (the reference) does it, step
 * for step, and what only Redis adds: the keys and their slot, the audit trail's cap, a consistent read under writes,
 * key ids as the store's key names hold them, failures as {@link StoreException}.
 */
class RedisSettingsIT {

    private static final String ENDED = "at most " + SharedSettings.MAX_OVERRIDES + " overrides hold at once; remove"
            + " some first";

    private RedisProcess redis;
    private RedisClient admin;
    private RedisStore store;
    private SharedSettings settings;

    @BeforeEach
    void start() throws Exception {
        redis = RedisProcess.start();
        admin = RedisClient.create(redis.url());
        store = store("");
        settings = store.settings();
    }

    @AfterEach
    void stop() throws Exception {
        store.close();
        admin.close();
        redis.close();
    }

    private RedisStore store(String options) {
        return RedisStore.builder().url(redis.url() + options).timeout(Duration.ofSeconds(2)).build();
    }

    /**
     * Runs {@code steps} on {@code s}, noting what each gave (its result, or its exception's class and message) and the
     * version after it, counted from the counter's start (a snapshot's too): Redis starts a counter it creates at its
     * time in microseconds, the local settings at 0; the first write, one change, is version 1 of both.
     */
    private static List<Object> replay(SharedSettings s, List<Function<SharedSettings, Object>> steps) {
        List<Object> seen = new ArrayList<>();
        long start = -1;
        for (Function<SharedSettings, Object> step : steps) {
            Object result;
            try {
                result = step.apply(s);
            } catch (RuntimeException e) {
                result = e.getClass().getSimpleName() + ": " + e.getMessage();
            }
            long version = s.version();
            start = start < 0 && version != 0 ? version - 1 : start;
            seen.add(result instanceof SharedSnapshot read ? new SharedSnapshot(counted(read.version(), start),
                    read.document(), read.overrides()) : result);
            seen.add(counted(version, start));
        }
        return seen;
    }

    /** @return {@code version} counted from {@code start} (0: no counter yet) */
    private static long counted(long version, long start) {
        return version == 0 ? 0 : version - start;
    }

    /** @return the audit trail without its ids (the store's own) */
    private static List<AuditEntry> trail(SharedSettings s) {
        return s.audit(100).stream().map(e -> e.withId("")).toList();
    }

    /** @return a snapshot's overrides in one order (a hash has none) */
    private static SharedSnapshot sorted(SharedSnapshot s) {
        return new SharedSnapshot(s.version(), s.document(), s.overrides().stream()
                .sorted(Comparator.comparing(KeyOverride::rule).thenComparing(KeyOverride::key)).toList());
    }

    /** Steps, results, versions, the snapshot and the trail: all as in memory. */
    private void agreesWithLocalSettings(List<Object> redisSteps, List<Object> localSteps, SharedSettings local) {
        agree(settings, redisSteps, local, localSteps);
    }

    private static void agree(SharedSettings redisSide, List<Object> redisSteps, SharedSettings local,
            List<Object> localSteps) {
        assertThat(redisSteps).isEqualTo(localSteps);
        SharedSnapshot read = sorted(redisSide.read());
        SharedSnapshot expected = sorted(local.read());
        assertThat(read.version()).as("the read's version is the counter's").isEqualTo(redisSide.version());
        assertThat(read.document()).isEqualTo(expected.document());
        assertThat(read.overrides()).isEqualTo(expected.overrides());
        assertThat(trail(redisSide)).isEqualTo(trail(local));
    }

    /** The script on every Redis these tests find (on CI, Redis 7 on the PATH and the embedded 6.2). */
    @Test
    void everyRedisVersionAgreesWithLocalSettings() throws Exception {
        List<Function<SharedSettings, Object>> steps = new ArrayList<>(documentSteps());
        steps.addAll(overrideSteps(new KeyOverride("api", "#k1", "5/1h", 0, "alice", 1_000),
                new KeyOverride("api", "#k1", "7/1h", 5_000, "bob", 2_000),
                new KeyOverride("api", "#k2", "1/1m", 3_000, "bob", 2_500),
                new KeyOverride("login", "#k1", "3/1m", 0, "carol", 4_000)));
        String prefix = "settings-" + UUID.randomUUID().toString().substring(0, 8);    // an external Redis keeps data
        List<RedisProcess> started = new ArrayList<>();
        try {
            for (String url : RedisProcess.everyVersion(started)) {
                try (RedisStore s = RedisStore.builder().url(url).prefix(prefix).timeout(Duration.ofSeconds(2))
                        .build()) {
                    SharedSettings local = SharedSettings.local();
                    List<Object> seen = replay(s.settings(), steps);
                    assertThat(seen).as("on Redis %s", RedisProcess.version(url)).contains(6L);
                    agree(s.settings(), seen, local, replay(local, steps));
                }
            }
        } finally {
            for (RedisProcess r : started) {
                r.close();
            }
        }
    }

    @Test
    void theDocumentIsReplacedOnlyOverTheVersionItsWriterRead() {
        List<Function<SharedSettings, Object>> steps = documentSteps();
        List<Object> seen = replay(settings, steps);
        assertThat(seen).containsExactly(
                SharedSnapshot.EMPTY, 0L,
                new SharedDocument(1, "rules: [a]", "alice", 1_000), 1L,
                "StaleVersionException: the shared rules document is at version 1, not 0: read it again", 1L,
                new SharedDocument(2, "rules: [b]", "bob", 3_000), 2L,
                new SharedDocument(3, "rules: [c]", "carol", 4_000), 3L,
                "IllegalArgumentException: a shared rules document holds at most 65536 bytes of UTF-8", 3L,
                new SharedDocument(4, null, "dave", 5_000), 4L,
                new SharedSnapshot(4, new SharedDocument(4, null, "dave", 5_000), List.of()), 4L,
                new SharedDocument(5, "", "erin", 6_000), 5L);
        assertThat(settings.audit(10)).extracting(AuditEntry::action, AuditEntry::who, AuditEntry::value,
                AuditEntry::previous).containsExactly(
                        tuple(Action.RULES_REPLACED, "erin", "version 5", ""),
                        tuple(Action.RULES_REPLACED, "dave", "", "rules: [c]"),
                        tuple(Action.RULES_REPLACED, "carol", "version 3", "rules: [b]"),
                        tuple(Action.RULES_REPLACED, "bob", "version 2", "rules: [a]"),
                        tuple(Action.RULES_REPLACED, "alice", "version 1", ""));
        SharedSettings local = SharedSettings.local();
        agreesWithLocalSettings(seen, replay(local, steps), local);
    }

    private static List<Function<SharedSettings, Object>> documentSteps() {
        return List.of(
            s -> s.read(),
            s -> s.replaceDocument("rules: [a]", 0, "alice", 1_000),
            s -> s.replaceDocument("rules: [b]", 0, "bob", 2_000),       // stale: nothing written
            s -> s.replaceDocument("rules: [b]", 1, "bob", 3_000),
            s -> s.replaceDocument("rules: [c]", -1, "carol", 4_000),    // whatever is there
            s -> s.replaceDocument("x".repeat(SharedSettings.MAX_DOCUMENT_BYTES + 1), -1, "x", 1),
            s -> s.replaceDocument(null, 3, "dave", 5_000),              // removed
            s -> s.read(),
            s -> s.replaceDocument("", 4, "erin", 6_000));
    }

    @Test
    void overridesAreSetReplacedRemovedAndDroppedOnceEnded() {
        KeyOverride first = new KeyOverride("api", "#k1", "5/1h", 0, "alice", 1_000);
        KeyOverride replaced = new KeyOverride("api", "#k1", "7/1h", 5_000, "bob", 2_000);
        KeyOverride ending = new KeyOverride("api", "#k2", "1/1m", 3_000, "bob", 2_500);
        KeyOverride later = new KeyOverride("login", "#k1", "3/1m", 0, "carol", 4_000);     // drops `ending`
        List<Function<SharedSettings, Object>> steps = overrideSteps(first, replaced, ending, later);
        List<Object> seen = replay(settings, steps);
        assertThat(seen).containsExactly(
                "null", 1L,
                first, 2L,
                "null", 3L,
                "null", 5L,                 // one for the override dropped, one for the override set
                later, 6L,
                "null", 6L,                 // nothing to remove: nothing written
                "null", 6L,                 // the key of another rule
                List.of(replaced), 6L);
        assertThat(settings.audit(10)).extracting(AuditEntry::action, AuditEntry::rule, AuditEntry::key,
                AuditEntry::value, AuditEntry::previous).containsExactly(
                        tuple(Action.OVERRIDE_REMOVED, "login", "#k1", "", "3/1m"),
                        tuple(Action.OVERRIDE_SET, "login", "#k1", "3/1m", ""),
                        tuple(Action.OVERRIDE_SET, "api", "#k2", "1/1m until 3000", ""),
                        tuple(Action.OVERRIDE_SET, "api", "#k1", "7/1h until 5000",
                                "5/1h"),
                        tuple(Action.OVERRIDE_SET, "api", "#k1", "5/1h", ""));
        SharedSettings local = SharedSettings.local();
        agreesWithLocalSettings(seen, replay(local, steps), local);
    }

    private static List<Function<SharedSettings, Object>> overrideSteps(KeyOverride first, KeyOverride replaced,
            KeyOverride ending, KeyOverride later) {
        return List.of(
            s -> String.valueOf(s.putOverride(first)),
            s -> s.putOverride(replaced),
            s -> String.valueOf(s.putOverride(ending)),
            s -> String.valueOf(s.putOverride(later)),
            s -> s.removeOverride("login", "#k1", "dave", 4_500),
            s -> String.valueOf(s.removeOverride("login", "#k1", "dave", 4_600)),
            s -> String.valueOf(s.removeOverride("other", "#k2", "dave", 4_700)),
            s -> s.read().overrides());
    }

    @Test
    void atMostMaxOverridesHoldAndEndedOnesMakeRoom() {
        Map<String, String> hash = new HashMap<>();
        for (int i = 0; i < SharedSettings.MAX_OVERRIDES - 2; i++) {
            KeyOverride o = new KeyOverride("api", "#held" + i, "5/1h", 0, "script", 1_000);
            hash.put(RedisSettings.field(o.rule(), o.key()), RedisSettings.encode(o));
        }
        KeyOverride ends = new KeyOverride("api", "#ends", "5/1h", 5_000, "script", 1_000);
        hash.put(RedisSettings.field(ends.rule(), ends.key()), RedisSettings.encode(ends));
        admin.hset(RedisSettings.keys(RedisStore.DEFAULT_PREFIX).get(2), hash);         // one short of the most

        assertThat(settings.putOverride(new KeyOverride("api", "#a", "9/1h", 0, "alice", 2_000))).isNull();
        assertThatThrownBy(() -> settings.putOverride(new KeyOverride("api", "#b", "9/1h", 0, "alice", 2_000)))
                .isInstanceOf(IllegalStateException.class).hasMessage(ENDED);
        assertThat(settings.putOverride(new KeyOverride("api", "#a", "8/1h", 0, "alice", 2_000)))
                .as("a key that has one may replace it").isNotNull();
        assertThat(settings.putOverride(new KeyOverride("api", "#b", "9/1h", 0, "alice", 6_000)))
                .as("the override that ended at 5000 makes room").isNull();
        assertThat(settings.read().overrides()).hasSize(SharedSettings.MAX_OVERRIDES)
                .noneMatch(o -> o.key().equals("#ends"));
    }

    @Test
    void theAuditTrailIsNewestFirstAndKeepsAboutItsLength() {
        int written = SharedSettings.AUDIT_LENGTH + 500;
        for (int i = 0; i < written; i++) {
            settings.record(new AuditEntry("", i, "alice", Action.KEY_RESET, "api", "#k" + i, "", ""));
        }
        long length = admin.xlen(RedisSettings.keys(RedisStore.DEFAULT_PREFIX).get(3));
        // MAXLEN ~ trims whole nodes of the stream (100 entries each by default): about the length, never far over
        assertThat(length).isBetween((long) SharedSettings.AUDIT_LENGTH, SharedSettings.AUDIT_LENGTH + 100L);
        List<AuditEntry> newest = settings.audit(3);
        assertThat(newest).extracting(AuditEntry::key).containsExactly("#k1499", "#k1498", "#k1497");
        assertThat(newest).extracting(AuditEntry::atMillis).containsExactly(1499L, 1498L, 1497L);
        assertThat(newest.get(0).id()).as("the stream entry's id").matches("\\d+-\\d+");
        assertThat(settings.audit(5_000)).hasSize((int) length);
        assertThat(settings.version()).as("a reset changes no setting").isZero();
    }

    /** Overrides written one at a time, each one more version: any read sees as many overrides as its version says. */
    @Test
    void aReadIsOneSnapshotWhileOthersWrite() throws Exception {
        int writes = 300;
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try (RedisStore reader = store("")) {
            settings.putOverride(new KeyOverride("api", "#k0", "5/1h", 0, "alice", 1_000));
            long start = settings.version() - 1;        // the counter's start: its time when created
            Future<?> writer = threads.submit(() -> {
                for (int i = 1; i < writes; i++) {
                    settings.putOverride(new KeyOverride("api", "#k" + i, "5/1h", 0, "alice", 1_000));
                }
            });
            Future<Integer> reads = threads.submit(() -> {
                int n = 0;
                SharedSnapshot s;
                do {
                    s = reader.settings().read();
                    assertThat(s.overrides()).hasSize((int) (s.version() - start));
                    n++;
                } while (s.version() - start < writes && !writer.isDone());
                return n;
            });
            writer.get();
            assertThat(reads.get()).isPositive();
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void aKeyIdIsTheKeyPartOfTheStoresRedisKey() {
        assertThat(keyPartWritten(store, "sluice:api:")).isEqualTo(settings.keyId("acme")).isNotEqualTo("acme")
                .startsWith("#");
        try (RedisStore raw = store("?raw-keys=true&prefix=raw&hash-tag=true")) {
            assertThat(keyPartWritten(raw, "{raw}:api:")).isEqualTo(raw.settings().keyId("acme")).isEqualTo("acme");
        }
    }

    /** @return the key part of the one Redis key under {@code head} after a decision of key "acme" */
    private String keyPartWritten(RedisStore s, String head) {
        s.evaluate(List.of(Check.of("api", "acme", Policy.parse("5/1m"), 1)), ManualTimeSource.START_MICROS);
        Set<String> keys = admin.keys(head + "*");
        assertThat(keys).hasSize(1);
        return keys.iterator().next().substring(head.length());
    }

    @Test
    void aScriptFlushedFromTheServerIsLoadedAgain() {
        settings.replaceDocument("rules: [a]", 0, "alice", 1_000);
        admin.scriptFlush();
        assertThat(settings.read().document().text()).isEqualTo("rules: [a]");
    }

    @Test
    void aRedisThatCannotBeReachedIsAStoreException() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        try (RedisStore down = RedisStore.builder().url("redis://127.0.0.1:" + port)
                .timeout(Duration.ofMillis(200)).build()) {
            assertThatThrownBy(() -> down.settings().version()).isInstanceOf(StoreException.class);
            assertThatThrownBy(() -> down.settings().read()).isInstanceOf(StoreException.class);
            assertThatThrownBy(() -> down.settings().putOverride(new KeyOverride("api", "#k", "5/1h", 0, "a", 1)))
                    .isInstanceOf(StoreException.class);
        }
    }

    @Test
    void inAClusterEverySettingLivesInOneSlot() throws Exception {
        try (TestCluster cluster = TestCluster.start();
                RedisStore spread = RedisStore.builder().cluster(cluster.seeds()).prefix("spread")
                        .timeout(Duration.ofSeconds(2)).build()) {
            SharedSettings s = spread.settings();
            assertThat(s.replaceDocument("rules: [a]", 0, "alice", 1_000).version()).isEqualTo(1);
            long first = s.version();
            s.putOverride(new KeyOverride("api", s.keyId("acme"), "5/1h", 0, "alice", 2_000));
            s.putOverride(new KeyOverride("api", s.keyId("zeta"), "6/1h", 0, "alice", 2_000));
            assertThat(s.removeOverride("api", s.keyId("zeta"), "bob", 3_000)).isNotNull();
            s.record(new AuditEntry("", 4_000, "bob", Action.KEY_RESET, "api", s.keyId("acme"), "", ""));
            SharedSnapshot read = s.read();
            assertThat(read.version()).isEqualTo(first + 3).isEqualTo(s.version());
            assertThat(read.document().text()).isEqualTo("rules: [a]");
            assertThat(read.overrides()).extracting(KeyOverride::policy).containsExactly("5/1h");
            assertThat(s.audit(10)).extracting(AuditEntry::action).containsExactly(Action.KEY_RESET,
                    Action.OVERRIDE_REMOVED, Action.OVERRIDE_SET, Action.OVERRIDE_SET, Action.RULES_REPLACED);

            Map<Integer, Set<String>> byNode = new HashMap<>();
            for (int i = 0; i < cluster.nodes().size(); i++) {
                try (Jedis j = new Jedis("127.0.0.1", cluster.nodes().get(i).port())) {
                    Set<String> here = j.keys("*_settings*");
                    if (!here.isEmpty()) {
                        byNode.put(i, here);
                    }
                }
            }
            assertThat(byNode).as("one master holds them all").hasSize(1);
            Set<String> keys = byNode.values().iterator().next();
            assertThat(keys).containsExactlyInAnyOrderElementsOf(RedisSettings.keys("spread"));
            Set<Integer> slots = new HashSet<>();
            keys.forEach(k -> slots.add(JedisClusterCRC16.getSlot(k)));
            assertThat(slots).hasSize(1);
        }
    }
}
