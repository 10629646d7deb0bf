package io.sluice.core.store;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.sluice.core.time.TimeSource;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The cells of a {@link MemoryStore}, one per (rule, key), in a Caffeine cache bounded by W-TinyLFU: quiet lookups
 * that record a sample of the hits in the eviction policy, the creation of a cell for a new key, and the sweep that
 * drops cells expired for longer than {@link MemoryStore#SWEEP_GRACE_MICROS}. A cell that leaves the cache (evicted,
 * swept or reset) is marked removed, under its lock, so that a holder looks again.
 */
final class CellCache {

    /** Expired keys examined per new key. */
    private static final int SWEEP_PER_INSERT = 2;

    private final Cache<StateKey, Cell> states;
    private final Map<StateKey, Cell> map;
    private final com.github.benmanes.caffeine.cache.Policy<StateKey, Cell> policy;
    private final AtomicLong ids = new AtomicLong();
    private final ReentrantLock sweeping = new ReentrantLock();
    private Iterator<Map.Entry<StateKey, Cell>> sweep;      // guarded by sweeping

    CellCache(long maximumKeys) {
        this.states = Caffeine.newBuilder()
                .maximumSize(maximumKeys)
                .evictionListener((StateKey k, Cell cell, com.github.benmanes.caffeine.cache.RemovalCause cause) -> {
                    if (cell != null) {
                        cell.remove();
                    }
                })
                .executor(Runnable::run)       // maintenance on the caller: no pool threads, deterministic in tests
                .build();
        this.map = states.asMap();
        this.policy = states.policy();
    }

    /** @return the cell of {@code key}, created empty when absent */
    Cell cell(StateKey key, long storeNow, boolean sample) {
        Cell cell = lookup(key, sample);
        return cell != null ? cell : create(key, storeNow);
    }

    /**
     * @param sample whether to count this hit here for Caffeine's policy (the single-check path counts under the
     *     cell's lock instead, and records after releasing it)
     * @return the cell of {@code key}, or null when absent
     */
    Cell lookup(StateKey key, boolean sample) {
        Cell cell = policy.getIfPresentQuietly(key);
        // W-TinyLFU learns from a sample of the hits: a hot key is still seen as hot, at a fraction of the cost of
        // recording every read (a shared buffer and its draining on the caller's thread)
        if (cell != null && sample && cell.sampleHit()) {
            states.getIfPresent(key);
        }
        return cell;
    }

    /**
     * A lookup that Caffeine's eviction policy records (frequency and recency). Never under a cell's lock: the
     * policy's maintenance may evict, and so lock, a cell.
     *
     * @return the cell of {@code key}, or null when absent
     */
    Cell getIfPresent(StateKey key) {
        return states.getIfPresent(key);
    }

    /** @return a new empty cell for {@code key}, or the one another thread has just put there */
    Cell create(StateKey key, long storeNow) {
        Cell created = new Cell(ids.incrementAndGet());
        Cell cell = map.putIfAbsent(key, created);
        if (cell != null) {
            return cell;
        }
        sweep(storeNow - MemoryStore.SWEEP_GRACE_MICROS, SWEEP_PER_INSERT, created);
        return created;
    }

    /** Drops {@code cell}, removed under its lock, if it is still the cell of {@code key}. Never under a cell's lock. */
    void remove(StateKey key, Cell cell) {
        map.remove(key, cell);
    }

    /** @return the cells in the map now, expired or not */
    int size() {
        return map.size();
    }

    /**
     * @return the number of keys whose state has not expired by {@code time}, read once; every key expired for more
     *     than the grace is swept first
     */
    long trackedKeys(TimeSource time) {
        states.cleanUp();
        long storeNow = time.nowMicros();
        sweeping.lock();
        try {
            sweep = null;
            sweep(storeNow - MemoryStore.SWEEP_GRACE_MICROS, -1, null);
            sweep = null;
        } finally {
            sweeping.unlock();
        }
        states.cleanUp();
        long tracked = 0;
        for (Cell cell : map.values()) {
            tracked += cell.algorithm != null && cell.expiresAt > storeNow ? 1 : 0;
        }
        return tracked;
    }

    /**
     * Drops up to {@code budget} cells expired by {@code expiredBy} (or all of them when negative), resuming where the
     * last sweep ended; never {@code keep} (the cell the caller has just created and is about to use). A budgeted sweep
     * (on a new key's insert) passes over a cell another thread holds rather than wait for it.
     */
    private void sweep(long expiredBy, int budget, Cell keep) {
        if (!sweeping.tryLock()) {
            return;
        }
        try {
            for (int examined = 0; budget < 0 || examined < budget; examined++) {
                if (sweep == null || !sweep.hasNext()) {
                    sweep = map.entrySet().iterator();
                    if (!sweep.hasNext() || (budget < 0 && examined > 0)) {
                        break;
                    }
                }
                Map.Entry<StateKey, Cell> e = sweep.next();
                Cell cell = e.getValue();
                if (cell == keep) {
                    continue;
                }
                boolean expired;
                if (budget < 0) {
                    cell.lock();
                } else if (!cell.tryLock()) {
                    continue;       // in use right now, so hardly expired: a later sweep looks again, no waiting here
                }
                try {
                    expired = !cell.removed && cell.algorithm != null && cell.expiresAt <= expiredBy;
                    if (expired) {
                        cell.removed = true;
                    }
                } finally {
                    cell.unlock();
                }
                if (expired) {
                    map.remove(e.getKey(), cell);
                }
            }
        } finally {
            sweeping.unlock();
        }
    }
}
