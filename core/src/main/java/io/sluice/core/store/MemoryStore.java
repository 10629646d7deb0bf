package io.sluice.core.store;

import io.sluice.core.algorithm.Algorithms;
import io.sluice.core.algorithm.Concurrency;
import io.sluice.core.algorithm.PrimitiveSteps;
import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import io.sluice.core.policy.PolicyParser;
import io.sluice.core.time.TimeSource;
import java.util.List;

/**
 * State in this JVM: exact on one node. Thread-safe and atomic per key; all or nothing across the checks of one
 * request. Keys are locked in a fixed order, so requests sharing keys never deadlock; and a request never livelocks:
 * when a key's cell leaves the cache between its lookup and its lock (evicted, swept or reset), the request looks
 * again at most {@value #MAX_ATTEMPTS} times in all, then answers against the cells it holds, a cell that has left
 * answering as a fresh key (as an evicted key does). So a request with more keys than {@link Builder#maximumKeys(long)}
 * (each new cell may evict another of the same request) still answers, and still all or nothing.
 *
 * <p>Bounded: at most {@link Builder#maximumKeys(long)} keys are tracked (default {@value #DEFAULT_MAXIMUM_KEYS});
 * beyond the maximum the least valuable keys are evicted by Caffeine's W-TinyLFU policy. An evicted key starts fresh,
 * so a flood of new keys can at worst make the limiter forget (and so admit) a rarely seen client, never grow the
 * heap. Idle state expires when its algorithm says it no longer matters, by the store's {@link TimeSource}: an
 * expired key answers as a fresh one at once, and its memory is reclaimed lazily (a few keys expired for more than
 * {@value #SWEEP_GRACE_MICROS} µs are swept each time a new key arrives, all of them by {@link #trackedKeys()}, and any
 * key by the size bound). Until then a clock that steps back finds the expired state again, as Redis does.
 *
 * <p>Layout: one Caffeine entry per (rule, key), whose value is a mutable cell holding the state (primitive longs for
 * GCRA, token bucket, fixed and sliding window counter) and its expiry; a decision updates the cell in place under the
 * cell's lock, so a steady key costs no allocation in the store and no write to the cache. Lookups are quiet and one hit
 * in {@value Cell#RECORD_EVERY} per key is recorded in Caffeine's eviction policy (frequency and recency), so the
 * policy still ranks keys by use.
 *
 * <p>The parts: {@link Cell} (one key's state and its lock), {@link CellCache} (the bounded map, its sampling and its
 * sweep), {@link SingleCheck} (the fast path) and {@link AllOrNothing} (the general path).
 */
public final class MemoryStore implements Store {

    /** Default maximum number of tracked keys: {@value}. */
    public static final long DEFAULT_MAXIMUM_KEYS = 100_000;
    /**
     * How long an expired cell stays in the map before a sweep drops it: {@value} µs, a minute. It already answers as a
     * fresh key while the clock moves forwards (its expiry is checked on every use), but a clock that steps back by up
     * to this grace finds the state it left, as it finds it in Redis, whose keys written on the application's time
     * outlive their state by a minute of slack: so a clock going back mints no permit here either. It also keeps a key
     * that comes back soon from being dropped and created again (short-lived states, such as GCRA's at a high rate,
     * would otherwise churn the cache). The size bound holds regardless.
     */
    static final long SWEEP_GRACE_MICROS = 60_000_000;
    /** Lookups of a request's cells before it answers against the ones it holds: {@value}. */
    static final int MAX_ATTEMPTS = 4;

    private final CellCache cache;
    private final TimeSource time;

    private MemoryStore(Builder b) {
        this.time = b.timeSource;
        this.cache = new CellCache(b.maximumKeys);
    }

    /** @return a store with the defaults: {@value #DEFAULT_MAXIMUM_KEYS} keys, the system clock */
    public static MemoryStore create() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** @return the clock that expires idle state */
    public TimeSource timeSource() {
        return time;
    }

    /**
     * One enforced check of a rate policy, without building a {@link Check} or a list: the path of
     * {@code Engine.tryAcquire}. Same answer and same effect as {@code evaluate(List.of(Check.of(rule, key, policy,
     * cost)), clock.nowMicros())}. Rate policies only.
     *
     * @param clock the caller's clock, read once; when it is this store's own clock, that one read also serves expiry
     * @throws IllegalArgumentException when {@code rule}, {@code key} or {@code policy} is null, {@code cost} is
     *     negative, or the policy is a concurrency policy (its lease could never be released)
     */
    public Outcome tryAcquire(String rule, String key, Policy policy, long cost, TimeSource clock) {
        Check.requireValid(rule, key, policy, cost);
        requireRate(policy, "tryAcquire");
        return decide(new StateKey(rule, key), policy, cost, clock, null);
    }

    /** Refuses a concurrency policy to a caller that could never release the lease it would take. */
    private static void requireRate(Policy policy, String caller) {
        if (policy.algorithm() == Algorithm.CONCURRENCY) {
            throw new IllegalArgumentException(caller + " takes no concurrency lease (it could never be released), got \""
                    + PolicyParser.format(policy) + "\"; use evaluate with a Check holding a lease id, and release");
        }
    }

    /** One rate check read against {@code clock}: the fast path when the algorithm has one, else the general path. */
    private Outcome decide(StateKey key, Policy policy, long cost, TimeSource clock, KeyHandle handle) {
        long now = clock.nowMicros();
        long storeNow = clock == time ? now : time.nowMicros();
        if (PrimitiveSteps.supports(policy.algorithm())) {
            return SingleCheck.evaluate(cache, key, policy, cost, now, storeNow, handle);
        }
        return AllOrNothing.evaluate(cache, List.of(Check.of(key.rule, key.key, policy, cost)), now, storeNow)
                .get(0);
    }

    @Override
    public List<Outcome> evaluate(List<Check> checks, long nowMicros) {
        return evaluateAt(checks, nowMicros, time.nowMicros());
    }

    /** When {@code clock} is this store's own clock, {@code nowMicros} also serves expiry: one clock read, not two. */
    @Override
    public List<Outcome> evaluate(List<Check> checks, long nowMicros, TimeSource clock) {
        return evaluateAt(checks, nowMicros, clock == time ? nowMicros : time.nowMicros());
    }

    /** A single check of an algorithm with a primitive twin takes the fast path; anything else the general one. */
    private List<Outcome> evaluateAt(List<Check> checks, long nowMicros, long storeNow) {
        if (checks.size() == 1) {
            Check check = checks.get(0);
            if (check.leaseId() == null && PrimitiveSteps.supports(check.policy().algorithm())) {
                return List.of(SingleCheck.evaluate(cache, new StateKey(check.rule(), check.key()), check.policy(),
                        check.cost(), nowMicros, storeNow, null));
            }
        }
        return AllOrNothing.evaluate(cache, checks, nowMicros, storeNow);
    }

    /**
     * A handle on one key of one rate policy, for a caller that decides for the same key again and again (one
     * third-party API, one account): it keeps the key's cell, so a decision skips the lookup (GCRA, token bucket, fixed
     * window and sliding window counter, the algorithms of {@link PrimitiveSteps}; the others look the key up). Same
     * answers and same state as {@link #tryAcquire(String, String, Policy, long, TimeSource)} with the same arguments:
     * the handle shares the store's cell for the key, and looks it up again once the cell has left the cache (evicted,
     * swept or reset).
     *
     * @param clock the caller's clock, read once per decision
     * @throws IllegalArgumentException as {@link #tryAcquire(String, String, Policy, long, TimeSource)} does
     */
    public KeyHandle handle(String rule, String key, Policy policy, TimeSource clock) {
        Check.requireValid(rule, key, policy, 0);
        requireRate(policy, "a key handle");
        if (clock == null) {
            throw new IllegalArgumentException("clock is required");
        }
        return new KeyHandle(this, new StateKey(rule, key), policy, clock);
    }

    /** One key of one rate policy in a {@link MemoryStore}: see {@link MemoryStore#handle}. Thread-safe. */
    public static final class KeyHandle {
        private final MemoryStore store;
        private final StateKey key;
        private final Policy policy;
        private final TimeSource clock;
        Cell cell;                       // the key's cell when last used; racy on purpose, checked under its lock

        private KeyHandle(MemoryStore store, StateKey key, Policy policy, TimeSource clock) {
            this.store = store;
            this.key = key;
            this.policy = policy;
            this.clock = clock;
        }

        /**
         * @param cost the weight, >= 0 (0 peeks)
         * @return the outcome for the key
         * @throws IllegalArgumentException when {@code cost} is negative
         */
        public Outcome tryAcquire(long cost) {
            Check.requireCost(cost);
            return store.decide(key, policy, cost, clock, this);
        }
    }

    @Override
    public void release(List<Lease> leases, long nowMicros) {
        long storeNow = time.nowMicros();
        for (Lease lease : leases) {
            StateKey key = new StateKey(lease.rule(), lease.key());
            while (true) {
                Cell cell = cache.getIfPresent(key);
                if (cell == null) {
                    break;
                }
                boolean removed;
                boolean drop = false;
                cell.lock();
                try {
                    removed = cell.removed;
                    // expired by the store's clock or not: a released lease must not come back if the clock steps back
                    Object state = removed || cell.algorithm != Algorithm.CONCURRENCY ? null : cell.state;
                    if (state != null) {
                        Concurrency.State after = Algorithms.concurrency().release((Concurrency.State) state, nowMicros,
                                lease.id());
                        if (after != state) {
                            Check check = new Check(lease.rule(), lease.key(), lease.policy(), 0, false, lease.id());
                            AllOrNothing.write(cell, check, after, nowMicros, storeNow);
                        }
                    }
                    if (!removed && cell.algorithm == null) {
                        cell.removed = true;          // the last lease is gone: the key is no longer tracked
                        drop = true;
                    }
                } finally {
                    cell.unlock();
                }
                if (removed || drop) {
                    cache.remove(key, cell);          // never under a cell's lock: Caffeine's eviction takes it
                }
                if (!removed) {
                    break;
                }
            }
        }
    }

    @Override
    public void reset(String rule, String key) {
        StateKey k = new StateKey(rule, key);
        Cell cell = cache.getIfPresent(k);
        if (cell != null) {
            cell.remove();
            cache.remove(k, cell);
        }
    }

    /** @return the cells in the map now, expired or not (tests: when the sweep drops them) */
    int cellsInMemory() {
        return cache.size();
    }

    /**
     * @return the number of keys tracked now: the keys whose state has not expired by the store's clock (this sweeps
     *     every key expired for more than {@value #SWEEP_GRACE_MICROS} µs, so it takes time in proportion to the number
     *     of keys; meant for tests and admin)
     */
    public long trackedKeys() {
        return cache.trackedKeys(time);
    }

    /** Builds a {@link MemoryStore}. */
    public static final class Builder {
        private long maximumKeys = DEFAULT_MAXIMUM_KEYS;
        private TimeSource timeSource = TimeSource.system();

        Builder() {}

        /** The most keys tracked at once (default {@value MemoryStore#DEFAULT_MAXIMUM_KEYS}). */
        public Builder maximumKeys(long max) {
            if (max < 1) {
                throw new io.sluice.core.config.ConfigException("maximum-keys", Long.toString(max), "expected at least 1");
            }
            this.maximumKeys = max;
            return this;
        }

        /** The clock that expires idle state; give the engine's own (default: the system clock). */
        public Builder timeSource(TimeSource time) {
            if (time == null) {
                throw new IllegalArgumentException("timeSource is required");
            }
            this.timeSource = time;
            return this;
        }

        public MemoryStore build() {
            return new MemoryStore(this);
        }
    }
}
