package io.sluice.core.algorithm;

import io.sluice.core.Policy;

/** Placeholder until the algorithm lands: replace this whole file, keeping the three method signatures. */
public final class Concurrency {

    /** Lease state per key. */
    public record State() {}

    /** Takes a lease {@code leaseId} of weight {@code cost} when fewer than {@code limit} are in flight. */
    public Step<State> acquire(State state, long nowMicros, long cost, Policy policy, String leaseId) {
        throw new UnsupportedOperationException("Concurrency is being written");
    }

    /** Frees lease {@code leaseId}; an unknown lease changes nothing. Returns null when no lease is left. */
    public State release(State state, long nowMicros, String leaseId) {
        throw new UnsupportedOperationException("Concurrency is being written");
    }

    /** Time until the last lease expires, at least 1. */
    public long ttlMicros(State state, long nowMicros, Policy policy) {
        throw new UnsupportedOperationException("Concurrency is being written");
    }
}
