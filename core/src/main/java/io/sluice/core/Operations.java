package io.sluice.core;

import io.sluice.core.config.ConfigException;
import io.sluice.core.internal.LogThrottle;
import io.sluice.core.log.LogText;
import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Policy;
import io.sluice.core.policy.PolicyParser;
import io.sluice.core.store.AuditEntry;
import io.sluice.core.store.KeyOverride;
import io.sluice.core.store.SharedDocument;
import io.sluice.core.store.SharedSettings;
import io.sluice.core.store.SharedSnapshot;
import io.sluice.core.store.StaleVersionException;
import io.sluice.core.store.StoreException;
import io.sluice.core.time.TimeSource;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What an operator changes while the nodes run ({@link Engine#operations()}): the shared rules document, per-key
 * overrides, resets, and the audit trail that records each of them with who did it. On Redis these live in Redis and
 * every node applies a change within about a second (a message for speed, a periodic version check for a message
 * missed); on the memory store they are this node's, kept in memory.
 *
 * <pre>
 * Operations ops = engine.operations();
 * ops.override(rule, "acme", "10000/1h", Duration.ofDays(7), "alice");   // one key of one rule, for a week
 * ops.reset("per-ip", "203.0.113.9", "alice");                           // unblock, on every node
 * ops.audit(20).forEach(System.out::println);                            // newest first
 * </pre>
 *
 * <p>A rules document needs a reader: a front door (servlet filter, JAX-RS) registers one, which checks a document
 * before it is written and puts it in force when it is read ({@link #readDocumentsWith}).
 */
public final class Operations {

    private static final System.Logger LOG = System.getLogger(Operations.class.getName());

    /** The longest an override can be set for: {@code 3650} days; longer ones hold until removed. */
    public static final Duration MAX_OVERRIDE_DURATION = Duration.ofDays(3650);

    /** Checks rules documents before they are written, and puts them in force: a front door's part. */
    public interface DocumentReader {

        /**
         * @param text a document about to be written
         * @throws ConfigException when it is invalid, naming what: nothing is written
         */
        void check(String text);

        /**
         * Puts {@code document} in force ({@link SharedDocument#NONE}: the local rules alone), all or nothing.
         *
         * @throws ConfigException when this node cannot use it: the rules in force stay
         */
        void apply(SharedDocument document);
    }

    /**
     * Where this node stands with the shared settings, for the admin view and metrics.
     *
     * @param version the settings' version last applied (0: none yet)
     * @param documentVersion the version of the rules document last put in force, a removal's included (0: none
     *     yet; a removal puts the local rules alone in force)
     * @param rejectedVersion the version of the last document this node could not use, 0 when none since the one in
     *     force
     * @param rejection why, or empty
     * @param rejections how many documents this node could not use since it started
     * @param overrides how many overrides are in force
     */
    public record Status(long version, long documentVersion, long rejectedVersion, String rejection, long rejections,
            int overrides) {}

    private final SharedSettings settings;
    private final Overrides overrides;
    private final Engine engine;
    private final TimeSource time;
    /** Tells the other nodes to read the settings now; does nothing on a store of this node alone. */
    private final Runnable tellFleet;
    /** Failures of the periodic check: logged at most once a minute, as it runs every second. */
    private final LogThrottle readFailures = new LogThrottle(60_000_000);
    /** Reads the settings when a reader is registered: at once, or on the watcher's thread ({@link #readOn}). */
    private volatile Runnable readSoon = this::refreshLogged;
    private DocumentReader reader;
    private long version = -1;
    /** The document last put in force: {@link SharedDocument#NONE} (the local rules alone) until one is. */
    private SharedDocument inForce = SharedDocument.NONE;
    /** The last document this node could not use, null when none since the one in force. */
    private SharedDocument rejected;
    private String rejection = "";
    private long rejections;

    Operations(SharedSettings settings, Overrides overrides, Engine engine, TimeSource time, Runnable tellFleet) {
        this.settings = settings;
        this.overrides = overrides;
        this.engine = engine;
        this.time = time;
        this.tellFleet = tellFleet;
    }

    /**
     * Reads the settings the engine needs before its first answer on {@code reads} rather than at once: a thread of
     * the engine's own, for shared settings, so that no caller waits on a store that does not answer.
     */
    void readOn(Runnable reads) {
        this.readSoon = reads;
    }

    /**
     * Registers the reader of rules documents (a front door does) and puts the document in the store in force: now, on
     * this node's settings; before the engine's first answer, on shared ones (read on the engine's own thread, so that
     * a front door starts at once when the store does not answer).
     *
     * @throws IllegalStateException when another reader is registered
     */
    public void readDocumentsWith(DocumentReader documents) {
        synchronized (this) {
            if (reader != null) {
                throw new IllegalStateException("a reader of rules documents is registered already");
            }
            reader = Objects.requireNonNull(documents, "reader");
            version = -1;           // read again, this time applying the document
        }
        readSoon.run();
    }

    /** @return the shared rules document, read from the store now */
    public SharedDocument document() {
        return settings.read().document();
    }

    /**
     * Checks {@code text} with the registered reader, writes it as the shared rules document when its version is still
     * {@code expectedVersion}, records the change in the audit trail, puts it in force here and tells the fleet.
     *
     * @param text the document, in a rules file's schema; null removes it (the local rules alone)
     * @param expectedVersion the version read before editing ({@link SharedDocument#version()}); -1 for whatever is
     *     there
     * @param who the admin principal, for the audit trail
     * @return the document written
     * @throws ConfigException when the document is invalid: nothing is written
     * @throws StaleVersionException when another version was written meanwhile: nothing is written
     * @throws IllegalStateException when no reader is registered (no front door reads documents here)
     * @throws StoreException when the store cannot answer
     */
    public SharedDocument replaceRules(String text, long expectedVersion, String who) {
        DocumentReader documents;
        synchronized (this) {
            documents = reader;
        }
        if (documents == null) {
            throw new IllegalStateException("no front door reads rules documents here: nothing to check it with");
        }
        if (text != null) {
            documents.check(text);
        }
        SharedDocument written = settings.replaceDocument(text, expectedVersion, who, nowMillis());
        changed();
        return written;
    }

    /**
     * Sets another policy for one key of one rule, written in the rule's algorithm (named or not: {@code "10000/1h"}),
     * until {@code duration} has passed or it is removed; records it in the audit trail and tells the fleet. The key
     * keeps its count: the new numbers apply to it.
     *
     * @param key the key as the rule resolves it (for an API key, the header's value)
     * @param duration how long it holds; null until removed
     * @return the override set, as stored
     * @throws ConfigException when {@code notation} is invalid or names another algorithm than the rule's
     * @throws IllegalStateException when {@link SharedSettings#MAX_OVERRIDES} hold already
     * @throws StoreException when the store cannot answer
     */
    public KeyOverride override(Rule rule, String key, String notation, Duration duration, String who) {
        Algorithm algorithm = rule.policy().algorithm();
        Policy policy = Overrides.parse("policy", notation, algorithm);
        if (policy.algorithm() != algorithm) {
            throw new ConfigException("policy", notation, "expected the algorithm of rule " + rule.name() + " ("
                    + algorithm.id() + "): an override changes the numbers, not the algorithm");
        }
        if (duration != null && (duration.isNegative() || duration.isZero()
                || duration.compareTo(MAX_OVERRIDE_DURATION) > 0)) {
            throw new ConfigException("duration", duration.toString(), "expected a positive duration of at most "
                    + MAX_OVERRIDE_DURATION.toDays() + " days (none: until removed)");
        }
        long now = nowMillis();
        long until = duration == null ? 0 : Math.addExact(now, duration.toMillis());
        KeyOverride o = new KeyOverride(rule.name(), settings.keyId(key), PolicyParser.format(policy), until, who,
                now);
        settings.putOverride(o);
        changed();
        return o;
    }

    /**
     * Removes one key's override; records it in the audit trail and tells the fleet.
     *
     * @return the override removed, or null when the key had none
     * @throws StoreException when the store cannot answer
     */
    public KeyOverride removeOverride(String rule, String key, String who) {
        KeyOverride removed = settings.removeOverride(rule, settings.keyId(key), who, nowMillis());
        if (removed != null) {
            changed();
        }
        return removed;
    }

    /** @return the overrides in the store now, ended ones left out */
    public List<KeyOverride> overrides() {
        long now = nowMillis();
        return settings.read().overrides().stream().filter(o -> o.holdsAt(now)).toList();
    }

    /**
     * Resets {@code key} under {@code rule} on every node ({@link Engine#reset}) and records it in the audit trail.
     *
     * @throws StoreException when the store cannot answer
     */
    public void reset(String rule, String key, String who) {
        engine.reset(rule, key);
        settings.record(new AuditEntry("", nowMillis(), who, AuditEntry.Action.KEY_RESET, rule, settings.keyId(key),
                "", ""));
    }

    /**
     * @param max the most entries, >= 1
     * @return the audit trail's newest entries, newest first
     */
    public List<AuditEntry> audit(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("max must be >= 1, got " + max);
        }
        return settings.audit(max);
    }

    /** @return {@code key} as overrides and the audit trail name it (a keyed hash on Redis, unless keys are raw) */
    public String keyId(String key) {
        return settings.keyId(key);
    }

    /** @return where this node stands */
    public synchronized Status status() {
        return new Status(Math.max(version, 0), inForce.version(), rejected == null ? 0 : rejected.version(),
                rejection, rejections, overrides.size());
    }

    /**
     * Reads the settings now and applies what changed: the overrides, and the document through the reader.
     *
     * @return whether anything changed
     * @throws StoreException when the store cannot answer (what is in force stays)
     */
    public boolean refresh() {
        long seen = settings.version();
        synchronized (this) {
            if (seen == version) {
                return false;
            }
        }
        SharedSnapshot s = settings.read();
        synchronized (this) {       // one application at a time, in order: never an older snapshot after a newer one
            if (s.version() == version) {
                return false;
            }
            overrides.replace(s.overrides());
            applyDocument(s.document());
            version = s.version();
            return true;
        }
    }

    /** {@link #refresh()}, logging a store that cannot answer: the periodic check's. */
    void refreshLogged() {
        try {
            refresh();
        } catch (RuntimeException e) {      // the store's failure, or a bug: the periodic check must go on
            readFailures.log(LOG, Level.WARNING, time.nowMicros(), "Sluice: the shared settings cannot be read just "
                    + "now; keeping those in force: " + LogText.safe(e.getMessage()), null);
        }
    }

    /**
     * Puts {@code d} in force unless it is the document in force or the one refused last: the whole document compared,
     * not its version, as a store that lost its data numbers its documents from 1 again ({@link SharedDocument#NONE}
     * then: the local rules alone).
     */
    private void applyDocument(SharedDocument d) {
        if (reader == null || d.equals(inForce) || d.equals(rejected)) {
            return;
        }
        try {
            reader.apply(d);
            inForce = d;
            rejected = null;
            rejection = "";
        } catch (RuntimeException e) {      // a reader's bug must not stop the overrides either
            rejected = d;
            rejection = String.valueOf(e.getMessage());
            rejections++;
            LOG.log(Level.WARNING, "Sluice: shared rules document version " + d.version() + " cannot be used on "
                    + "this node; keeping the rules in force (document version " + inForce.version() + "): "
                    + rejection);
        }
    }

    /** After a write here: put it in force at once, then tell the others. */
    private void changed() {
        refreshLogged();
        tellFleet.run();
    }

    private long nowMillis() {
        return time.nowMicros() / 1000;
    }
}
