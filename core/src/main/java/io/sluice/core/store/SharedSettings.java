package io.sluice.core.store;

import java.util.List;

/**
 * What the nodes that share a store share besides counts, kept in the store: a rules document, per-key overrides, and
 * the audit trail of operators' actions. {@link Store#settings()} gives a store's; the engine keeps settings of its own
 * in memory for a store that has none ({@link #local()}). Every write is atomic and records its audit entry in the
 * same step. Implementations are thread-safe.
 *
 * <p>Keys at rest: overrides and audit entries hold a key as {@link #keyId} writes it, as the store's key names do, so
 * a store that keeps no raw client identifier at rest keeps none here either.
 */
public interface SharedSettings {

    /** The longest rules document kept: {@value} bytes of UTF-8 (64 KiB). */
    int MAX_DOCUMENT_BYTES = 64 * 1024;
    /** The most overrides kept at once: {@value}. */
    int MAX_OVERRIDES = 10_000;
    /** The audit trail keeps about the {@value} newest entries. */
    int AUDIT_LENGTH = 1_000;

    /**
     * @return a number that changes whenever the document or an override changes, and never gives again a number it
     *     gave before the store lost its data (a node may still hold that one): the one read of the periodic check
     * @throws StoreException when the store cannot answer
     */
    long version();

    /**
     * @return the document and the overrides, read together
     * @throws StoreException when the store cannot answer
     */
    SharedSnapshot read();

    /**
     * Replaces the rules document, when its version is still {@code expectedVersion}, and records the change (the
     * previous text included) in the audit trail, in one step.
     *
     * @param text the new document, at most {@link #MAX_DOCUMENT_BYTES} bytes; null removes it
     * @param expectedVersion the version the writer read (0: there is none yet); -1 replaces whatever is there
     * @param who the admin principal, for the audit trail
     * @param nowMillis the writer's time, epoch milliseconds
     * @return the document now in the store
     * @throws StaleVersionException when the version is another: nothing was written
     * @throws IllegalArgumentException when the text is too long
     * @throws StoreException when the store cannot answer (the document may or may not have been written)
     */
    SharedDocument replaceDocument(String text, long expectedVersion, String who, long nowMillis);

    /**
     * Sets an override, replacing the key's previous one, and records it in the audit trail, in one step. Overrides
     * that have ended are dropped meanwhile.
     *
     * @param override the override; its key as {@link #keyId} writes it
     * @return the override it replaced, or null
     * @throws IllegalStateException when {@link #MAX_OVERRIDES} hold already and the key has none
     * @throws StoreException when the store cannot answer
     */
    KeyOverride putOverride(KeyOverride override);

    /**
     * Removes a key's override and records it in the audit trail, in one step (nothing is recorded when there was none).
     *
     * @param key as {@link #keyId} writes it
     * @return the override removed, or null when there was none
     * @throws StoreException when the store cannot answer
     */
    KeyOverride removeOverride(String rule, String key, String who, long nowMillis);

    /**
     * Adds an entry to the audit trail (a reset), the oldest entries dropped past about {@link #AUDIT_LENGTH}.
     *
     * @throws StoreException when the store cannot answer
     */
    void record(AuditEntry entry);

    /**
     * @param max the most entries wanted, >= 1
     * @return the newest entries, newest first
     * @throws StoreException when the store cannot answer
     */
    List<AuditEntry> audit(int max);

    /**
     * @return {@code key} (a key as a rule resolves it) as this store keeps it at rest, the form overrides and audit
     *     entries hold: the key itself unless the store writes a keyed hash
     */
    default String keyId(String key) {
        return key;
    }

    /**
     * @return whether other nodes may change these settings, so that a node must watch them (Redis); false for
     *     settings of this process alone, which only its own engine changes. False unless overridden.
     */
    default boolean shared() {
        return false;
    }

    /** @return settings held in this process's memory, for a store that has none: one node's, lost at exit */
    static SharedSettings local() {
        return new LocalSettings();
    }
}
