package io.sluice.core.algorithm;

import io.sluice.core.Policy;

/** Placeholder until the algorithm lands: replace this whole file. */
final class SlidingWindowCounter implements RateAlgorithm<Object> {

    @Override
    public Step<Object> step(Object state, long nowMicros, long cost, Policy policy) {
        throw new UnsupportedOperationException("SlidingWindowCounter is being written");
    }

    @Override
    public long ttlMicros(Object state, long nowMicros, Policy policy) {
        throw new UnsupportedOperationException("SlidingWindowCounter is being written");
    }
}
