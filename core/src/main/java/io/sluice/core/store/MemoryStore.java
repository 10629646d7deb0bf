package io.sluice.core.store;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import io.sluice.core.Algorithm;
import io.sluice.core.Outcome;
import io.sluice.core.Policy;
import io.sluice.core.algorithm.Algorithms;
import io.sluice.core.algorithm.Concurrency;
import io.sluice.core.algorithm.RateAlgorithm;
import io.sluice.core.algorithm.Step;
import io.sluice.core.time.TimeSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * State in this JVM: exact on one node. Thread-safe and atomic per key; all or nothing across the checks of one
 * request (keys are locked in a fixed order, so requests sharing keys never deadlock).
 *
 * <p>Bounded: at most {@link Builder#maximumKeys(long)} keys are tracked (default {@value #DEFAULT_MAXIMUM_KEYS});
 * idle state expires when its algorithm says it no longer matters, and beyond the maximum the least valuable keys
 * are evicted by Caffeine's W-TinyLFU policy. An evicted key starts fresh, so a flood of new keys can at worst make
 * the limiter forget (and so admit) a rarely seen client, never grow the heap.
 */
public final class MemoryStore implements Store {

    /** Default maximum number of tracked keys: {@value}. */
    public static final long DEFAULT_MAXIMUM_KEYS = 100_000;
    private static final int STRIPES = 4096;

    private final Cache<StateKey, Entry> states;
    private final Object[] stripes = new Object[STRIPES];

    private MemoryStore(Builder b) {
        TimeSource time = b.timeSource;
        this.states = Caffeine.newBuilder()
                .maximumSize(b.maximumKeys)
                .expireAfter(new EntryExpiry())
                .ticker(() -> time.nowMicros() * 1_000)
                .executor(Runnable::run)       // maintenance on the caller: no pool threads, deterministic in tests
                .build();
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new Object();
        }
    }

    /** @return a store with the defaults: {@value #DEFAULT_MAXIMUM_KEYS} keys, the system clock */
    public static MemoryStore create() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public List<Outcome> evaluate(List<Check> checks, long nowMicros) {
        StateKey[] keys = new StateKey[checks.size()];
        int[] order = new int[keys.length];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = new StateKey(checks.get(i).rule(), checks.get(i).key());
            order[i] = stripe(keys[i]);
        }
        if (keys.length == 1) {
            synchronized (stripes[order[0]]) {
                return evaluateLocked(checks, keys, nowMicros);
            }
        }
        Arrays.sort(order);
        return lockAndEvaluate(order, 0, checks, keys, nowMicros);
    }

    /** Locks the stripes in ascending order (a total order: no deadlock), skipping repeats. */
    private List<Outcome> lockAndEvaluate(int[] order, int i, List<Check> checks, StateKey[] keys, long now) {
        if (i == order.length) {
            return evaluateLocked(checks, keys, now);
        }
        if (i > 0 && order[i] == order[i - 1]) {
            return lockAndEvaluate(order, i + 1, checks, keys, now);
        }
        synchronized (stripes[order[i]]) {
            return lockAndEvaluate(order, i + 1, checks, keys, now);
        }
    }

    private List<Outcome> evaluateLocked(List<Check> checks, StateKey[] keys, long now) {
        int n = checks.size();
        Object[] before = new Object[n];
        Step<?>[] steps = new Step<?>[n];
        boolean denied = false;
        for (int i = 0; i < n; i++) {
            Check check = checks.get(i);
            Entry entry = states.getIfPresent(keys[i]);
            before[i] = entry == null || entry.algorithm != check.policy().algorithm() ? null : entry.state;
            steps[i] = step(check, before[i], now);
            denied |= !steps[i].outcome().allowed() && !check.shadow();
        }
        List<Outcome> outcomes = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Check check = checks.get(i);
            Object after = !denied && steps[i].outcome().allowed() ? steps[i].state() : onDenied(check, before[i], now);
            if (after != before[i]) {
                write(keys[i], check, after, now);
            }
            outcomes.add(steps[i].outcome());
        }
        return outcomes;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Step<?> step(Check check, Object state, long now) {
        Policy policy = check.policy();
        if (policy.algorithm() == Algorithm.CONCURRENCY) {
            return Algorithms.concurrency().acquire((Concurrency.State) state, now, check.cost(), policy, check.leaseId());
        }
        RateAlgorithm algorithm = Algorithms.rate(policy.algorithm());
        return algorithm.step(state, now + Algorithms.staggerOffsetMicros(check.key(), policy), check.cost(), policy);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Object onDenied(Check check, Object state, long now) {
        Policy policy = check.policy();
        if (policy.algorithm() == Algorithm.CONCURRENCY) {
            return state;
        }
        RateAlgorithm algorithm = Algorithms.rate(policy.algorithm());
        return algorithm.onDenied(state, now + Algorithms.staggerOffsetMicros(check.key(), policy), check.cost(), policy);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private void write(StateKey key, Check check, Object state, long now) {
        if (state == null) {
            states.invalidate(key);
            return;
        }
        Policy policy = check.policy();
        long ttl = policy.algorithm() == Algorithm.CONCURRENCY
                ? Algorithms.concurrency().ttlMicros((Concurrency.State) state, now, policy)
                : ((RateAlgorithm) Algorithms.rate(policy.algorithm()))
                        .ttlMicros(state, now + Algorithms.staggerOffsetMicros(check.key(), policy), policy);
        states.put(key, new Entry(state, policy.algorithm(), Math.max(1, ttl)));
    }

    @Override
    public void release(List<Lease> leases, long nowMicros) {
        for (Lease lease : leases) {
            StateKey key = new StateKey(lease.rule(), lease.key());
            synchronized (stripes[stripe(key)]) {
                Entry entry = states.getIfPresent(key);
                if (entry == null) {
                    continue;
                }
                Concurrency.State after = Algorithms.concurrency().release((Concurrency.State) entry.state, nowMicros, lease.id());
                if (after != entry.state) {
                    Check check = new Check(lease.rule(), lease.key(), lease.policy(), 0, false, lease.id());
                    write(key, check, after, nowMicros);
                }
            }
        }
    }

    @Override
    public void reset(String rule, String key) {
        StateKey k = new StateKey(rule, key);
        synchronized (stripes[stripe(k)]) {
            states.invalidate(k);
        }
    }

    /** @return the number of keys tracked now (after pending evictions run) */
    public long trackedKeys() {
        states.cleanUp();
        return states.estimatedSize();
    }

    private static int stripe(StateKey key) {
        int h = key.hashCode();
        return (h ^ (h >>> 16)) & (STRIPES - 1);
    }

    private record StateKey(String rule, String key) {}

    /** A state and how long it stays meaningful from the time it was written. */
    private record Entry(Object state, Algorithm algorithm, long ttlMicros) {}

    private static final class EntryExpiry implements Expiry<StateKey, Entry> {
        @Override
        public long expireAfterCreate(StateKey key, Entry entry, long currentTime) {
            return nanos(entry.ttlMicros);
        }

        @Override
        public long expireAfterUpdate(StateKey key, Entry entry, long currentTime, long currentDuration) {
            return nanos(entry.ttlMicros);
        }

        @Override
        public long expireAfterRead(StateKey key, Entry entry, long currentTime, long currentDuration) {
            return currentDuration;
        }

        private static long nanos(long micros) {
            return micros > Long.MAX_VALUE / 1_000 ? Long.MAX_VALUE : micros * 1_000;
        }
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
            this.timeSource = time;
            return this;
        }

        public MemoryStore build() {
            return new MemoryStore(this);
        }
    }
}
