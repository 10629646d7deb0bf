package io.sluice.core.store;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import io.sluice.core.algorithm.Algorithms;
import io.sluice.core.algorithm.Concurrency;
import io.sluice.core.algorithm.PrimitiveSteps;
import io.sluice.core.algorithm.RateAlgorithm;
import io.sluice.core.algorithm.Slots;
import io.sluice.core.algorithm.Step;
import io.sluice.core.policy.PolicyParser;
import io.sluice.core.time.TimeSource;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

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
 * in {@value #RECORD_EVERY} per key is recorded in Caffeine's eviction policy (frequency and recency), so the policy
 * still ranks keys by use.
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
    /** Expired keys examined per new key. */
    private static final int SWEEP_PER_INSERT = 2;
    /** One hit in this many (a power of two) is recorded in Caffeine's eviction policy: {@value}. */
    private static final int RECORD_EVERY = 16;
    /** Lookups of a request's cells before it answers against the ones it holds: {@value}. */
    static final int MAX_ATTEMPTS = 4;
    /**
     * The id of a cell that is never in the map: the fresh state of an absent key for an answer that writes nothing.
     * Real cells count from 1, so it sorts first among the locks of a request (it is private to the request: its lock
     * is never contended).
     */
    private static final long SCRATCH_ID = 0;

    private final Cache<StateKey, Cell> states;
    private final Map<StateKey, Cell> map;
    private final com.github.benmanes.caffeine.cache.Policy<StateKey, Cell> policy;
    private final TimeSource time;
    private final AtomicLong ids = new AtomicLong();
    private final ReentrantLock sweeping = new ReentrantLock();
    private Iterator<Map.Entry<StateKey, Cell>> sweep;      // guarded by sweeping

    private MemoryStore(Builder b) {
        this.time = b.timeSource;
        this.states = Caffeine.newBuilder()
                .maximumSize(b.maximumKeys)
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
            return evaluateOne(key, policy, cost, now, storeNow, handle);
        }
        return evaluateAll(List.of(Check.of(key.rule, key.key, policy, cost)), now, storeNow).get(0);
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
                return List.of(evaluateOne(new StateKey(check.rule(), check.key()), check.policy(), check.cost(),
                        nowMicros, storeNow, null));
            }
        }
        return evaluateAll(checks, nowMicros, storeNow);
    }

    /**
     * The single-check fast path: one lookup, one lock, the primitive step in place.
     *
     * @param handle the caller's handle on this key, whose cell is used instead of a lookup while it has not left the
     *     cache (then looked up again and remembered); or null
     */
    private Outcome evaluateOne(StateKey key, Policy policy, long cost, long now, long storeNow, KeyHandle handle) {
        Algorithm algorithm = policy.algorithm();
        long at = now + Algorithms.staggerOffsetMicros(key.key, policy);
        for (int attempt = 1; ; attempt++) {
            Cell known = handle != null ? handle.cell : null;
            Cell cell = known != null && !known.removed ? known : lookup(key, false);
            if (cell == null) {
                // an absent key answers as a fresh one: an answer that writes nothing (a peek, a cost above the
                // capacity) needs no cell, so it neither inserts one nor makes the bound evict another key
                Outcome fresh = PrimitiveSteps.step(algorithm, new Cell(SCRATCH_ID), true, at, cost, policy);
                if (cost == 0 || !fresh.allowed()) {
                    return fresh;
                }
                cell = create(key, storeNow);
            }
            Outcome outcome = null;
            boolean empty;
            boolean record;
            cell.lockShort();
            try {
                // a cell that left the cache: look again, or after MAX_ATTEMPTS answer as a fresh key (nothing kept)
                if (!cell.removed || attempt >= MAX_ATTEMPTS) {
                    outcome = PrimitiveSteps.step(algorithm, cell, !cell.holds(algorithm, storeNow), at, cost, policy);
                    if (outcome.allowed() && cost > 0) {
                        cell.wrotePrimitive(algorithm, at, storeNow, policy);
                    }
                }
                empty = cell.removed || cell.algorithm == null;
                if (empty) {
                    cell.removed = true;    // nothing was written: a peek or a denial tracks no key
                }
                record = (++cell.hits & (RECORD_EVERY - 1)) == 0;   // counted under the lock: no extra line transfer
            } finally {
                cell.unlock();
            }
            if (empty) {
                map.remove(key, cell);
            } else if (record) {
                states.getIfPresent(key);   // never under a cell's lock: the policy's maintenance may evict (and lock)
            }
            if (handle != null && known != cell) {
                handle.cell = empty ? null : cell;      // written on change only, like the cell's own references
            }
            if (outcome != null) {
                return outcome;
            }
            // evicted or swept between the lookup and the lock (and already removed above): look again
        }
    }

    /** The general path: any algorithm, any number of checks, all or nothing. */
    private List<Outcome> evaluateAll(List<Check> checks, long now, long storeNow) {
        int n = checks.size();
        StateKey[] keys = new StateKey[n];
        for (int i = 0; i < n; i++) {
            keys[i] = new StateKey(checks.get(i).rule(), checks.get(i).key());
        }
        for (int attempt = 1; ; attempt++) {
            Cell[] cells = new Cell[n];
            for (int i = 0; i < n; i++) {
                Check c = checks.get(i);
                if (c.cost() == 0) {
                    // a peek writes nothing (a lease of cost 0 neither): an absent key answers as fresh from a cell of
                    // its own, never inserted
                    Cell found = lookup(keys[i], true);
                    cells[i] = found != null ? found : new Cell(SCRATCH_ID);
                } else {
                    cells[i] = cell(keys[i], storeNow, true);
                }
            }
            Cell[] order = cells.clone();
            Arrays.sort(order, (a, b) -> Long.compare(a.id, b.id));
            List<Outcome> outcomes = lockAndEvaluate(order, 0, checks, cells, now, storeNow, attempt >= MAX_ATTEMPTS);
            for (int i = 0; i < n; i++) {
                // emptied by this request (nothing written), or evicted before the locks
                if (cells[i].removed && cells[i].id != SCRATCH_ID) {
                    map.remove(keys[i], cells[i]);
                }
            }
            if (outcomes != null) {
                return outcomes;
            }
        }
    }

    /**
     * Locks the cells in ascending id order (a total order: no deadlock), skipping repeats.
     *
     * @param last whether to answer even when a cell has left the cache (it then answers as a fresh key, and what is
     *     written to it is dropped with it); else such a cell makes the caller look again
     * @return the outcomes, or null to look again
     */
    private List<Outcome> lockAndEvaluate(Cell[] order, int i, List<Check> checks, Cell[] cells, long now, long storeNow,
            boolean last) {
        if (i == order.length) {
            for (Cell c : cells) {
                if (c.removed && !last) {
                    return null;
                }
            }
            List<Outcome> outcomes = evaluateLocked(checks, cells, now, storeNow);
            for (Cell c : cells) {
                if (c.algorithm == null) {
                    c.removed = true;         // nothing was written: a peek or a denial tracks no key
                }
            }
            return outcomes;
        }
        if (i > 0 && order[i] == order[i - 1]) {
            return lockAndEvaluate(order, i + 1, checks, cells, now, storeNow, last);
        }
        order[i].lock();
        try {
            return lockAndEvaluate(order, i + 1, checks, cells, now, storeNow, last);
        } finally {
            order[i].unlock();
        }
    }

    private List<Outcome> evaluateLocked(List<Check> checks, Cell[] cells, long now, long storeNow) {
        int n = checks.size();
        Outcome[] outcomes = new Outcome[n];
        Object[] before = new Object[n];
        Object[] after = new Object[n];     // the reference step's new state; or the scratch copy a primitive step wrote
        boolean denied = false;
        for (int i = 0; i < n; i++) {
            Check check = checks.get(i);
            Policy policy = check.policy();
            Algorithm algorithm = policy.algorithm();
            Cell cell = cells[i];
            if (PrimitiveSteps.supports(algorithm)) {
                // the primitive step on a copy of the slots, kept until every check has answered (all or nothing)
                boolean fresh = !cell.holds(algorithm, storeNow);
                Cell copy = new Cell(SCRATCH_ID);
                if (!fresh) {
                    copy.copySlots(cell);
                }
                outcomes[i] = PrimitiveSteps.step(algorithm, copy, fresh, at(check, now), check.cost(), policy);
                after[i] = outcomes[i].allowed() && check.cost() > 0 ? copy : null;
            } else {
                before[i] = cell.removed ? null : cell.state(algorithm, storeNow);
                Step<?> step = step(check, before[i], now);
                outcomes[i] = step.outcome();
                after[i] = step.state();
            }
            denied |= !outcomes[i].allowed() && !check.shadow();
        }
        for (int i = 0; i < n; i++) {
            Check check = checks.get(i);
            Cell cell = cells[i];
            if (after[i] instanceof Cell copy) {       // a primitive step that wrote (only SlidingLog acts on denial)
                if (!denied) {
                    cell.copySlots(copy);
                    cell.wrotePrimitive(check.policy().algorithm(), at(check, now), storeNow, check.policy());
                }
                continue;
            }
            if (PrimitiveSteps.supports(check.policy().algorithm())) {
                continue;                               // a primitive step that wrote nothing
            }
            Object state = !denied && outcomes[i].allowed() ? after[i] : onDenied(check, before[i], now);
            if (state != before[i]) {
                write(cell, check, state, now, storeNow);
            }
        }
        return Arrays.asList(outcomes);
    }

    /** The time a check's algorithm sees: {@code now}, staggered per key for a staggered fixed window. */
    private static long at(Check check, long now) {
        return now + Algorithms.staggerOffsetMicros(check.key(), check.policy());
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Step<?> step(Check check, Object state, long now) {
        Policy policy = check.policy();
        if (policy.algorithm() == Algorithm.CONCURRENCY) {
            return Algorithms.concurrency().acquire((Concurrency.State) state, now, check.cost(), policy, check.leaseId());
        }
        RateAlgorithm algorithm = Algorithms.rate(policy.algorithm());
        return algorithm.step(state, at(check, now), check.cost(), policy);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Object onDenied(Check check, Object state, long now) {
        Policy policy = check.policy();
        if (policy.algorithm() == Algorithm.CONCURRENCY) {
            return state;
        }
        RateAlgorithm algorithm = Algorithms.rate(policy.algorithm());
        return algorithm.onDenied(state, at(check, now), check.cost(), policy);
    }

    /**
     * Stores {@code state} (null: forget), of an algorithm without a primitive twin, in a locked cell with the expiry
     * its algorithm gives it (the primitive algorithms write their slots: {@link Cell#wrotePrimitive}).
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void write(Cell cell, Check check, Object state, long now, long storeNow) {
        if (state == null) {
            cell.clear();
            return;
        }
        Policy policy = check.policy();
        Algorithm algorithm = policy.algorithm();
        long ttl = algorithm == Algorithm.CONCURRENCY
                ? Algorithms.concurrency().ttlMicros((Concurrency.State) state, now, policy)
                : ((RateAlgorithm) Algorithms.rate(algorithm))
                        .ttlMicros(state, at(check, now), policy);
        if (cell.algorithm != algorithm) {
            cell.algorithm = algorithm;       // only on change: see Cell.wrotePrimitive
        }
        cell.state = state;
        cell.expiresAt = storeNow + Math.max(1, ttl);
    }

    /** @return the cell of {@code key}, created empty when absent */
    private Cell cell(StateKey key, long storeNow, boolean sample) {
        Cell cell = lookup(key, sample);
        return cell != null ? cell : create(key, storeNow);
    }

    /**
     * @param sample whether to count this hit here for Caffeine's policy (the single-check path counts under the
     *     cell's lock instead, and records after releasing it)
     * @return the cell of {@code key}, or null when absent
     */
    private Cell lookup(StateKey key, boolean sample) {
        Cell cell = policy.getIfPresentQuietly(key);
        // W-TinyLFU learns from a sample of the hits: a hot key is still seen as hot, at a fraction of the cost of
        // recording every read (a shared buffer and its draining on the caller's thread)
        if (cell != null && sample && (++cell.hits & (RECORD_EVERY - 1)) == 0) {
            states.getIfPresent(key);
        }
        return cell;
    }

    /** @return a new empty cell for {@code key}, or the one another thread has just put there */
    private Cell create(StateKey key, long storeNow) {
        Cell created = new Cell(ids.incrementAndGet());
        Cell cell = map.putIfAbsent(key, created);
        if (cell != null) {
            return cell;
        }
        sweep(storeNow - SWEEP_GRACE_MICROS, SWEEP_PER_INSERT, created);
        return created;
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
        private Cell cell;               // the key's cell when last used; racy on purpose, checked under its lock

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
                Cell cell = states.getIfPresent(key);
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
                            write(cell, check, after, nowMicros, storeNow);
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
                    map.remove(key, cell);            // never under a cell's lock: Caffeine's eviction takes it
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
        Cell cell = states.getIfPresent(k);
        if (cell != null) {
            cell.remove();
            map.remove(k, cell);
        }
    }

    /** @return the cells in the map now, expired or not (tests: when the sweep drops them) */
    int cellsInMemory() {
        return map.size();
    }

    /**
     * @return the number of keys tracked now: the keys whose state has not expired by the store's clock (this sweeps
     *     every key expired for more than {@value #SWEEP_GRACE_MICROS} µs, so it takes time in proportion to the number
     *     of keys; meant for tests and admin)
     */
    public long trackedKeys() {
        states.cleanUp();
        long storeNow = time.nowMicros();
        sweeping.lock();
        try {
            sweep = null;
            sweep(storeNow - SWEEP_GRACE_MICROS, -1, null);
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

    private static final class StateKey {
        final String rule;
        final String key;
        private final int hash;

        StateKey(String rule, String key) {
            this.rule = rule;
            this.key = key;
            this.hash = 31 * rule.hashCode() + key.hashCode();
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof StateKey other && hash == other.hash && key.equals(other.key) && rule.equals(other.rule);
        }

        @Override
        public String toString() {
            return rule + "/" + key;
        }
    }

    /**
     * The state of one (rule, key), updated in place under its own lock: the algorithm that wrote it (null: empty),
     * the state (primitive slots for the algorithms of {@link PrimitiveSteps}, else an immutable state object), and
     * the store time at which it stops mattering. {@code removed} once it has left the cache: a holder looks again.
     */
    private static final class Cell extends Slots {
        private static final VarHandle LOCK;
        private static final int SPINS = 64;
        private static final int YIELDS = 1_000;
        /** Re-reads of a lock held for a short step before a fast-path waiter steps aside (a power of two). */
        private static final int SHORT_SPINS = 4;
        /** Values of the lock word: free, held for a step of any length ({@link #lock}), held for a short one. */
        private static final int HELD_LONG = 1;
        private static final int HELD_SHORT = 2;
        private static final long PARK_NANOS = 10_000;

        static {
            try {
                LOCK = MethodHandles.lookup().findVarHandle(Cell.class, "locked", int.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        final long id;
        private volatile int locked;    // HELD_LONG or HELD_SHORT while a thread holds the cell, else 0
        Algorithm algorithm;
        Object state;
        long expiresAt = Long.MIN_VALUE;
        boolean removed;
        int hits;                    // racy on the multi-check path: only samples which hits Caffeine records

        Cell(long id) {
            this.id = id;
        }

        /**
         * @return whether the cell holds live state of {@code wanted}: not removed (a cell that left the cache answers
         *     as a fresh key), not empty, not expired, not another algorithm's
         */
        boolean holds(Algorithm wanted, long storeNow) {
            return !removed && algorithm == wanted && expiresAt > storeNow;
        }

        /**
         * @return the state object of {@code wanted}, an algorithm without a primitive twin (those live in the slots),
         *     or null when empty, expired or of another algorithm
         */
        Object state(Algorithm wanted, long storeNow) {
            return holds(wanted, storeNow) ? state : null;
        }

        void copySlots(Cell from) {
            s0 = from.s0;
            s1 = from.s1;
            s2 = from.s2;
        }

        /**
         * Records that a primitive step of {@code wrote} its new state into the slots: the algorithm, no reference
         * state, and the expiry the state gives. References are written only when they change: a reference store into a
         * long-lived cell dirties a card that the collector's refinement threads must then scan (G1), on every decision.
         */
        void wrotePrimitive(Algorithm wrote, long at, long storeNow, Policy policy) {
            if (algorithm != wrote) {
                algorithm = wrote;
            }
            if (state != null) {
                state = null;
            }
            expiresAt = storeNow + PrimitiveSteps.ttlMicros(wrote, this, at, policy);
        }

        void clear() {
            algorithm = null;
            state = null;
            expiresAt = Long.MIN_VALUE;
        }

        void remove() {
            lock();
            try {
                removed = true;
            } finally {
                unlock();
            }
        }

        /**
         * Takes the cell's lock: one compare-and-set when it is free (a monitor costs two, and under contention parks
         * the thread). Held for one algorithm step and never across a call out of the store. Here the step may be long:
         * on the multi-check path the reference step, which for a sliding log or concurrency copies up to the limit's
         * timestamps. So a waiter spins briefly, then yields, then sleeps a little at a time (a holder may be
         * descheduled, or stepping a long log).
         */
        void lock() {
            if (!LOCK.compareAndSet(this, 0, HELD_LONG)) {
                lockContended(HELD_LONG);
            }
        }

        /**
         * {@link #lock()} for a step over a few longs (the single-check path, tens of nanoseconds). A waiter for such a
         * holder re-reads the lock a few times, then steps aside for a moment: spinning at a holder that keeps the cell
         * so briefly only moves its cache line from core to core and back, and two threads hammering one key then
         * each pay that on every decision. Stepping aside lets the holder's thread go on uncontended, as
         * Resilience4j's limiter backs off when its compare-and-set fails. Only such waiters step aside, and only
         * behind such holders: a waiter of {@link #lock()} may hold other cells (the multi-check path) or run inside
         * the cache's eviction, and waits as it always did; so does any waiter behind a {@link #lock()} holder.
         */
        void lockShort() {
            if (!LOCK.compareAndSet(this, 0, HELD_SHORT)) {
                lockContended(HELD_SHORT);
            }
        }

        /** @return whether the lock was free and is now held (as by {@link #lock()}); never waits */
        boolean tryLock() {
            return LOCK.compareAndSet(this, 0, HELD_LONG);
        }

        private void lockContended(int kind) {
            boolean interrupted = false;
            for (int tries = 1; ; tries = Math.min(tries + 1, SPINS + YIELDS)) {     // capped: no overflow
                int held = locked;
                if (held == 0 && LOCK.compareAndSet(this, 0, kind)) {
                    if (interrupted) {
                        Thread.currentThread().interrupt();      // kept for the caller, not lost to the parks
                    }
                    return;
                }
                if (kind == HELD_SHORT && held == HELD_SHORT) {
                    // a fast-path waiter (it holds no other cell) behind a fast-path holder: step aside now and then
                    if ((tries & (SHORT_SPINS - 1)) == 0) {
                        LockSupport.parkNanos(PARK_NANOS);
                        interrupted |= Thread.interrupted();     // a pending interrupt would make every park return
                    }
                } else if (tries < SPINS) {
                    // a bare re-read: most holders keep the cell for well under a microsecond
                } else if (tries < SPINS + YIELDS) {
                    Thread.yield();
                } else {
                    LockSupport.parkNanos(PARK_NANOS);
                    interrupted |= Thread.interrupted();
                }
            }
        }

        void unlock() {
            LOCK.setRelease(this, 0);
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
