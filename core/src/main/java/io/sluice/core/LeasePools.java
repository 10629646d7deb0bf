package io.sluice.core;

import io.sluice.core.policy.Policy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The {@link LeasePool}s of the keys this node leases for, at most {@value #MAX_POOLS}. A lookup is a read of a
 * {@link ConcurrentHashMap}: a decision answered from a block takes no lock but its own key's pool's, and writes
 * nothing shared by all keys. Only a key that turns hot ({@link KeyRates}) adds a pool; when the pools are full, the
 * one that adds sweeps them (one sweep at a time, at most once per {@value #SWEEP_EVERY_MICROS} µs): pools idle for
 * {@value #IDLE_MICROS} µs go, and if that is not enough, the half idle longest. A pool that goes lets the permits it
 * held lapse. Thread-safe.
 */
final class LeasePools {

    /** The most keys whose blocks and rates this node tracks: {@value}. */
    static final int MAX_POOLS = 10_000;
    /** A pool unused this long goes at the next sweep: {@value} µs. */
    static final long IDLE_MICROS = 60_000_000;
    /** The least time between two sweeps: {@value} µs. */
    static final long SWEEP_EVERY_MICROS = 1_000_000;

    private final Map<Key, LeasePool> pools = new ConcurrentHashMap<>();
    private final ReentrantLock sweeping = new ReentrantLock();
    private final LeaseCounts.Counter counter;
    private final int maxPools;
    private volatile long nextSweep = Long.MIN_VALUE;

    record Key(String rule, String key) {}

    private record Idle(Key key, LeasePool pool, long lastUsed) {}

    /** @param counter told of the permits that lapse when a pool goes */
    LeasePools(LeaseCounts.Counter counter) {
        this(counter, MAX_POOLS);
    }

    /** @param maxPools the most pools held (tests) */
    LeasePools(LeaseCounts.Counter counter, int maxPools) {
        this.counter = counter;
        this.maxPools = maxPools;
    }

    /** @return the key's pool; null when it has none */
    LeasePool get(Key k) {
        return pools.get(k);
    }

    /**
     * @return the key's pool under {@code policy}, made now if it has none (the blocks of a pool under another policy
     *     lapse); null when the pools are full, or in a reload's race
     */
    LeasePool open(Key k, Policy policy, long nowMicros) {
        LeasePool pool = pools.get(k);
        if (pool == null) {
            if (pools.size() >= maxPools && !sweep(nowMicros)) {
                return null;        // full: the key's requests go to the store
            }
            pool = pools.computeIfAbsent(k, x -> new LeasePool(policy, nowMicros));
        }
        if (pool.policy().equals(policy)) {
            return pool;
        }
        LeasePool old = pool;
        LeasePool fresh = new LeasePool(policy, nowMicros);
        pool = pools.compute(k, (x, current) -> current == null || current == old ? fresh : current);
        if (pool == fresh) {
            counter.lapsed(old.held());
        }
        return pool.policy().equals(policy) ? pool : null;
    }

    /** Forgets the key's pool: its permits lapse. */
    void drop(Key k) {
        LeasePool pool = pools.remove(k);
        if (pool != null) {
            counter.lapsed(pool.held());
        }
    }

    /** @return the number of pools held */
    int size() {
        return pools.size();
    }

    /** @return whether the pools have room now, after a sweep when one is due and no other thread sweeps */
    private boolean sweep(long nowMicros) {
        if (nowMicros < nextSweep || !sweeping.tryLock()) {
            return false;
        }
        try {
            nextSweep = nowMicros + SWEEP_EVERY_MICROS;
            List<Idle> kept = new ArrayList<>(pools.size());
            for (Map.Entry<Key, LeasePool> e : pools.entrySet()) {
                long lastUsed = e.getValue().lastUsed();            // read once: the sort needs fixed values
                if (nowMicros - lastUsed >= IDLE_MICROS) {
                    remove(e.getKey(), e.getValue());
                } else {
                    kept.add(new Idle(e.getKey(), e.getValue(), lastUsed));
                }
            }
            if (pools.size() >= maxPools) {
                kept.sort((a, b) -> Long.compare(a.lastUsed(), b.lastUsed()));
                for (int i = 0; i < kept.size() / 2; i++) {
                    remove(kept.get(i).key(), kept.get(i).pool());
                }
            }
            return pools.size() < maxPools;
        } finally {
            sweeping.unlock();
        }
    }

    private void remove(Key k, LeasePool pool) {
        if (pools.remove(k, pool)) {
            counter.lapsed(pool.held());
        }
    }
}
