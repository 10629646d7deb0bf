package io.sluice.core;

import java.util.concurrent.atomic.LongAdder;

/**
 * What leased permits ({@link io.sluice.core.policy.Policy#leasedMicros()}) did on this node since the engine started:
 * the figures for metrics. All zero on a store of this process alone.
 *
 * @param leasedDecisions rule checks answered from a leased block, without a store call
 * @param storeDecisions checks of leasing rules that the store answered (a cold key, or no block at hand)
 * @param takes store calls that took a block
 * @param permitsTaken permits those calls took
 * @param permitsLapsed permits that ended unspent (the under-use leasing costs)
 */
public record LeaseCounts(long leasedDecisions, long storeDecisions, long takes, long permitsTaken,
        long permitsLapsed) {

    /** The live counters behind a {@link LeaseCounts}. */
    static final class Counter {
        private final LongAdder leased = new LongAdder();
        private final LongAdder store = new LongAdder();
        private final LongAdder takes = new LongAdder();
        private final LongAdder taken = new LongAdder();
        private final LongAdder lapsed = new LongAdder();

        void leased(long checks) {
            leased.add(checks);
        }

        void store(long checks) {
            if (checks > 0) {
                store.add(checks);
            }
        }

        void took(long permits) {
            takes.increment();
            taken.add(permits);
        }

        void lapsed(long permits) {
            lapsed.add(permits);
        }

        LeaseCounts read() {
            return new LeaseCounts(leased.sum(), store.sum(), takes.sum(), taken.sum(), lapsed.sum());
        }
    }
}
