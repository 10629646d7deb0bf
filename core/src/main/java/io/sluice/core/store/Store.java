package io.sluice.core.store;

import io.sluice.core.policy.Outcome;
import io.sluice.core.time.TimeSource;
import java.util.List;

/**
 * Where rate-limiting state lives. {@link #evaluate} answers every rule of one request together, all or nothing:
 * when an enforced check is denied, no check consumes (a sliding log with {@code countRejected} records the attempt);
 * shadow checks never block the others. Implementations are thread-safe.
 */
public interface Store extends AutoCloseable {

    /**
     * Evaluates the checks of one request atomically.
     *
     * @param checks the request's checks, at least one
     * @param nowMicros the application's time; a store configured to use its own clock (Redis {@code TIME}) ignores it
     * @return one outcome per check, in the same order
     * @throws StoreException when the store cannot answer
     */
    List<Outcome> evaluate(List<Check> checks, long nowMicros);

    /**
     * {@link #evaluate(List, long)}, knowing the clock {@code nowMicros} was read from: a store that keeps time of its
     * own (the memory store's expiry) need not read that clock again when it is the same one. The engine calls this.
     *
     * @param clock the clock that gave {@code nowMicros}
     */
    default List<Outcome> evaluate(List<Check> checks, long nowMicros, TimeSource clock) {
        return evaluate(checks, nowMicros);
    }

    /**
     * Releases concurrency leases taken by {@link #evaluate}. Releasing an unknown or expired lease does nothing.
     *
     * @throws StoreException when the store cannot be reached (the engine keeps the leases and releases them before a later call; else they expire)
     */
    void release(List<Lease> leases, long nowMicros);

    /**
     * Forgets a key's state under a rule (admin: reset or unblock).
     */
    void reset(String rule, String key);

    /**
     * @return whether other processes share this store's state (Redis), so that a node may lease permits from it in
     *     blocks ({@link io.sluice.core.policy.Policy#leasedMicros()}); false for a store of this process alone, where
     *     every decision is local already. False unless overridden.
     */
    default boolean shared() {
        return false;
    }

    /**
     * @return the channel on which the nodes that share this store tell each other of penalties and resets, or null
     *     for a store of this process alone (the default)
     */
    default FleetChannel fleet() {
        return null;
    }

    /**
     * @return the rules document, overrides and audit trail the nodes that share this store share
     *     ({@link SharedSettings}), or null for a store of this process alone (the default): the engine then keeps
     *     them in memory, for this node only
     */
    default SharedSettings settings() {
        return null;
    }

    /** Releases connections and threads. */
    @Override
    default void close() {}
}
