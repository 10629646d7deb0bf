package io.sluice.core;

import io.sluice.core.internal.LogThrottle;
import io.sluice.core.log.LogText;
import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import io.sluice.core.store.Check;
import io.sluice.core.store.DelegatingStore;
import io.sluice.core.store.Store;
import io.sluice.core.store.StoreException;
import io.sluice.core.time.TimeSource;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

/**
 * Leased permits in front of a shared store ({@link Policy#leasedMicros()}): a check of a leasing rule is answered from
 * this node's block of permits for its key when the block has enough, without a store call (when a take for the key is
 * in flight, after it lands); else the store decides it, as without leasing. Blocks are taken in the background, one take in flight per key, each debited in the store first
 * ({@link LeasePool} sizes them), and lapse unspent at their end (on the engine's clock and on the monotonic clock,
 * whichever comes first: a step of the wall clock never stretches one): never over the limit, under-use at most a block per
 * node and key. A request is all or nothing across its rules: when the store denies one, the permits its other rules
 * took from blocks go back to them.
 *
 * <p>Only where leases pay: a key leases once it comes often enough on this node that a block would hold several
 * permits ({@link KeyRates#hot}: a decayed count of its requests per lease time, in a table of fixed size); a cold
 * key's checks go to the store call by call, with no pool, no block and no take. A decision answered from a block
 * takes no lock but its key's pool's ({@link LeasePools}). Thread-safe.
 */
final class LeasedPermits extends DelegatingStore {

    /** The longest a request waits for its key's take in flight before the store decides it alone: {@value} ms. */
    static final long TAKE_WAIT_MILLIS = 50;
    private static final System.Logger LOG = System.getLogger(Engine.class.getName());

    private final TimeSource time;
    private final LongSupplier monoMicros;
    private final Executor takes;
    private final LeaseCounts.Counter counter = new LeaseCounts.Counter();
    /** The keys that lease: those {@link #rates} found hot. */
    private final LeasePools pools = new LeasePools(counter);
    /** Each key's rate on this node, for which keys lease. */
    private final KeyRates rates = new KeyRates();
    private final LogThrottle failureLines = new LogThrottle(60_000_000);

    /** Takes blocks on two background threads of its own; blocks end on the monotonic clock too. */
    LeasedPermits(Store store, TimeSource time) {
        this(store, time, () -> System.nanoTime() / 1_000, null);
    }

    /**
     * @param monoMicros a monotonic clock in µs, on which blocks end too (tests: the manual clock)
     * @param takes runs the takes of blocks (tests: on the caller's thread); null for two threads of its own
     */
    LeasedPermits(Store store, TimeSource time, LongSupplier monoMicros, Executor takes) {
        super(store);
        this.time = time;
        this.monoMicros = monoMicros;
        this.takes = takes != null ? takes : takeThreads();
    }

    /**
     * Two threads, idle ones ending after 30 s, behind a queue without a lock (a request whose block runs low queues
     * its key's take there): one take at most per key with a pool, so at most {@value LeasePools#MAX_POOLS} wait.
     */
    private static ExecutorService takeThreads() {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(2, 2, 30, TimeUnit.SECONDS, new LinkedTransferQueue<>(),
                r -> {
                    Thread t = new Thread(r, "sluice-leased-permits");
                    t.setDaemon(true);
                    return t;
                });
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    /** @return what leasing did so far */
    LeaseCounts counts() {
        return counter.read();
    }

    /** @return the permits this node's blocks hold for a rule's key (tests) */
    long heldFor(String rule, String key) {
        LeasePool pool = pools.get(new LeasePools.Key(rule, key));
        return pool == null ? 0 : pool.held();
    }

    /** @return the pool of a rule's key, null when it has none (tests) */
    LeasePool poolOf(String rule, String key) {
        return pools.get(new LeasePools.Key(rule, key));
    }

    /** @return the number of keys this node holds blocks and rates for (tests) */
    int poolCount() {
        return pools.size();
    }

    @Override
    public List<Outcome> evaluate(List<Check> checks, long nowMicros) {
        return evaluate(checks, nowMicros, time);
    }

    @Override
    public List<Outcome> evaluate(List<Check> checks, long nowMicros, TimeSource clock) {
        LeasePool[] leasing = null;
        int cold = 0;
        for (int i = 0; i < checks.size(); i++) {
            Check c = checks.get(i);
            if (!leases(c)) {
                continue;
            }
            LeasePool pool = pool(c, nowMicros);
            if (pool != null) {
                leasing = leasing != null ? leasing : new LeasePool[checks.size()];
                leasing[i] = pool;
            } else {
                cold++;
            }
        }
        if (leasing == null) {
            List<Outcome> outcomes = store.evaluate(checks, nowMicros, clock);
            counter.store(cold);
            return outcomes;
        }
        return evaluateLeasing(checks, leasing, nowMicros, clock);
    }

    private static boolean leases(Check c) {
        return c.policy().leasedMicros() > 0 && c.cost() > 0 && !c.shadow();
    }

    /**
     * @return the key's pool under the check's policy (a changed rule's blocks lapse), when the key comes often enough
     *     on this node for a block to pay ({@link KeyRates#hot}); null for a cold key, whose check the store decides
     *     as without leasing (a block it still holds lapses unspent), when the pools are full, or in a reload's race
     */
    private LeasePool pool(Check c, long nowMicros) {
        if (!rates.hot(c.rule(), c.key(), c.policy().leasedMicros(), nowMicros)) {
            return null;
        }
        return pools.open(new LeasePools.Key(c.rule(), c.key()), c.policy(), nowMicros);
    }

    /** The checks blocks can answer are answered from them; the others go to the store in one call. */
    private List<Outcome> evaluateLeasing(List<Check> checks, LeasePool[] leasing, long nowMicros, TimeSource clock) {
        int n = checks.size();
        Outcome[] out = new Outcome[n];
        LeasePool.Spend[] spent = new LeasePool.Spend[n];
        List<Check> rest = new ArrayList<>(n);
        // the latest reading of the engine's clock: blocks are spent, and the store asked, at it (see now(long[]))
        long[] latest = {nowMicros};
        for (int i = 0; i < n; i++) {
            Check c = checks.get(i);
            spent[i] = leasing[i] == null ? null : spend(leasing[i], c.cost(), latest);
            out[i] = spent[i] == null ? null : spent[i].outcome();
            if (out[i] == null) {
                rest.add(c);
            }
        }
        try {
            if (rest.isEmpty()) {
                counter.leased(n);
            } else {
                answer(checks, rest, out, spent, leasing, latest, clock);
            }
        } finally {
            for (int i = 0; i < n; i++) {
                if (leasing[i] != null) {
                    takeIfDue(checks.get(i), leasing[i], latest[0]);
                }
            }
        }
        return Arrays.asList(out);
    }

    /**
     * Spends from the key's blocks; when they are short and a take is in flight, waits for it (at most
     * {@value #TAKE_WAIT_MILLIS} ms), as a store call would take as long, and tries once more.
     *
     * @return what was spent, or null when the store must decide
     */
    private LeasePool.Spend spend(LeasePool pool, long cost, long[] latest) {
        LeasePool.Spend o = pool.trySpend(cost, now(latest), counter);
        CompletableFuture<Void> take = o == null ? pool.inFlight() : null;
        if (take == null) {
            return o;
        }
        try {
            take.get(TAKE_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
        return pool.trySpend(cost, now(latest), counter);     // read again: the wait took time
    }

    /**
     * Reads the clocks. A request is decided at the latest reading of the engine's clock, never earlier than the time
     * it came with ({@code latest[0]}, updated): a block's end is checked then, so that a pause or a wait after the
     * request read its time neither stretches a block nor spends it before its take; and the store is asked then.
     *
     * @return now on both clocks: that reading, and the monotonic clock's
     */
    private Moment now(long[] latest) {
        latest[0] = Math.max(latest[0], time.nowMicros());
        return new Moment(latest[0], monoMicros.getAsLong());
    }

    /**
     * Asks the store for {@code rest}, the checks {@code out} has no outcome for, and fills them in; when the store
     * denies the request, or fails, the checks answered from blocks give their permits back.
     */
    private void answer(List<Check> checks, List<Check> rest, Outcome[] out, LeasePool.Spend[] spent,
            LeasePool[] leasing, long[] latest, TimeSource clock) {
        long nowMicros = latest[0];
        List<Outcome> answered;
        try {
            answered = store.evaluate(rest, nowMicros, clock);
        } catch (RuntimeException | Error e) {
            refund(checks, spent, leasing, latest);
            throw e;
        }
        boolean denied = false;
        for (int i = 0, j = 0; i < out.length; i++) {
            if (spent[i] == null) {
                Check c = checks.get(i);
                out[i] = answered.get(j++);
                denied |= !out[i].allowed() && !c.shadow();
                if (leasing[i] != null) {
                    leasing[i].observed(out[i], c.cost(), nowMicros);
                }
                if (leases(c)) {
                    counter.store(1);
                }
            }
        }
        if (denied) {
            refund(checks, spent, leasing, latest);
        } else {
            counter.leased(out.length - rest.size());
        }
    }

    private void refund(List<Check> checks, LeasePool.Spend[] spent, LeasePool[] leasing, long[] latest) {
        for (int i = 0; i < spent.length; i++) {
            if (spent[i] != null) {
                leasing[i].refund(spent[i], checks.get(i).cost(), now(latest), counter);
            }
        }
    }

    /** Takes a block for the key in the background when its pool says one is due. */
    private void takeIfDue(Check c, LeasePool pool, long nowMicros) {
        long k = pool.takeDue(nowMicros);
        if (k == 0) {
            return;
        }
        try {
            takes.execute(() -> take(Check.of(c.rule(), c.key(), c.policy(), k), pool));
        } catch (RejectedExecutionException e) {
            pool.refused(null, nowMicros);        // the takes stopped: this key's requests go to the store
        }
    }

    /**
     * One take: {@code block.cost()} permits debited in the store; the block ends a lease time after the call was
     * sent (the store counted it no earlier), for a fixed window no later than its window's end.
     */
    private void take(Check block, LeasePool pool) {
        long sent = time.nowMicros();
        long sentMono = monoMicros.getAsLong();
        Outcome o = null;
        try {
            o = store.evaluate(List.of(block), sent, time).get(0);
        } catch (RuntimeException e) {
            failureLines.log(LOG, Level.WARNING, sent, "Sluice could not take leased permits for rule " + block.rule()
                    + ": " + LogText.safe(e.getMessage()) + "; its requests go to the store meanwhile",
                    e instanceof StoreException ? null : e);
        } finally {
            if (o != null && o.allowed()) {
                long life = block.policy().leasedMicros();
                if (block.policy().algorithm() == Algorithm.FIXED_WINDOW) {
                    life = Math.min(life, o.resetAfterMicros());
                }
                counter.took(block.cost());
                pool.landed(block.cost(), new Moment(sent, sentMono).plus(life), o, sent, now(new long[] {sent}),
                        counter);
            } else {
                pool.refused(o, sent);
            }
        }
    }

    /** Forgets the key's blocks on this node (their permits lapse) and its state in the store. */
    @Override
    public void reset(String rule, String key) {
        dropBlocks(rule, key);
        store.reset(rule, key);
    }

    /** Forgets the key's blocks on this node: their permits lapse. */
    void dropBlocks(String rule, String key) {
        pools.drop(new LeasePools.Key(rule, key));
    }

    /**
     * Stops the threads that take blocks ({@code sluice-leased-permits}; a take in flight is interrupted) and waits for
     * them to end ({@link Threads#stop}), without closing the store it wraps. Blocks already held are still spent; a
     * block due afterwards is not taken, so its key's requests go to the store, as while a take is refused. Idempotent;
     * an executor the caller gave is left alone.
     */
    void stopTakes() {
        if (takes instanceof ExecutorService e) {
            Threads.stop(e, "sluice-leased-permits");
        }
    }

    /** Stops the threads that take blocks ({@link #stopTakes()}) and closes the store it wraps. */
    @Override
    public void close() {
        stopTakes();
        store.close();
    }
}
