package io.sluice.core.store;

import io.sluice.core.algorithm.Algorithms;
import io.sluice.core.algorithm.PrimitiveSteps;
import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;

/**
 * The single-check fast path of a {@link MemoryStore}, for the algorithms of {@link PrimitiveSteps}: one lookup, one
 * lock, the primitive step in place. A steady key costs no allocation and no write to the cache.
 */
final class SingleCheck {

    private SingleCheck() {}

    /**
     * @param handle the caller's handle on this key, whose cell is used instead of a lookup while it has not left the
     *     cache (then looked up again and remembered); or null
     */
    static Outcome evaluate(CellCache cache, StateKey key, Policy policy, long cost, long now, long storeNow,
            MemoryStore.KeyHandle handle) {
        Algorithm algorithm = policy.algorithm();
        long at = now + Algorithms.staggerOffsetMicros(key.key, policy);
        for (int attempt = 1; ; attempt++) {
            Cell known = handle != null ? handle.cell : null;
            Cell cell = known != null && !known.removed ? known : cache.lookup(key, false);
            if (cell == null) {
                Outcome fresh = withoutCell(algorithm, at, cost, policy);
                if (fresh != null) {
                    return fresh;
                }
                cell = cache.create(key, storeNow);
            }
            Outcome outcome = null;
            boolean empty;
            boolean record;
            cell.lockShort();
            try {
                // a cell that left the cache: look again, or after MAX_ATTEMPTS answer as a fresh key (nothing kept)
                if (!cell.removed || attempt >= MemoryStore.MAX_ATTEMPTS) {
                    outcome = stepInPlace(cell, algorithm, at, cost, policy, storeNow);
                }
                empty = cell.retireIfEmpty();       // nothing was written: a peek or a denial tracks no key
                record = cell.sampleHit();          // counted under the lock: no extra line transfer
            } finally {
                cell.unlock();
            }
            settle(cache, key, cell, empty, record);
            if (handle != null && known != cell) {
                handle.cell = empty ? null : cell;      // written on change only, like the cell's own references
            }
            if (outcome != null) {
                return outcome;
            }
            // evicted or swept between the lookup and the lock (and already removed above): look again
        }
    }

    /**
     * An absent key answers as a fresh one: an answer that writes nothing (a peek, a cost above the capacity) needs no
     * cell, so it neither inserts one nor makes the bound evict another key.
     *
     * @return that answer, or null when the answer writes: the key needs a cell
     */
    private static Outcome withoutCell(Algorithm algorithm, long at, long cost, Policy policy) {
        Outcome fresh = PrimitiveSteps.step(algorithm, new Cell(Cell.SCRATCH_ID), true, at, cost, policy);
        return cost == 0 || !fresh.allowed() ? fresh : null;
    }

    /**
     * After the cell's lock: drops a cell the step left empty (or that left the cache) from the map, or records a
     * sampled hit in the eviction policy, whose maintenance may evict, and so lock, a cell.
     */
    private static void settle(CellCache cache, StateKey key, Cell cell, boolean empty, boolean record) {
        if (empty) {
            cache.remove(key, cell);
        } else if (record) {
            cache.getIfPresent(key);
        }
    }

    /** The primitive step on the locked cell's own slots, and its new expiry when it wrote. */
    private static Outcome stepInPlace(Cell cell, Algorithm algorithm, long at, long cost, Policy policy,
            long storeNow) {
        Outcome outcome = PrimitiveSteps.step(algorithm, cell, !cell.holds(algorithm, storeNow), at, cost, policy);
        if (outcome.allowed() && cost > 0) {
            cell.wrotePrimitive(algorithm, at, storeNow, policy);
        }
        return outcome;
    }
}
