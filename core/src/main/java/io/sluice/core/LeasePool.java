package io.sluice.core;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import java.util.concurrent.CompletableFuture;

/**
 * One rule's key on this node under leased permits ({@link Policy#leasedMicros()}): the blocks of permits the node
 * took from the shared store and has not spent yet (at most two: the one in use and the one that refilled it), each
 * with its end on two clocks ({@link Moment}), and what sizes the next block. Thread-safe; every method holds the pool's lock for a few field
 * updates, never across a store call.
 *
 * <p><b>Block size.</b> The next block is the permits this key spent since the last take, per µs, times the lease time
 * (for a fixed window, at most until its window ends), at most twice the last size plus one, and at most an eighth of
 * what the store last said remains: so a key near its limit gets blocks of one, which are not leased at all (its
 * requests are decided by the store, exactly), and a quiet key never leases. A block is taken when what is left falls
 * to a quarter of the last one.
 */
final class LeasePool {

    /** A block is taken when the permits left fall to this share of the last block: 1 / {@value}. */
    private static final int LOW_WATER = 4;
    /** The most a block may take of what the store said remains: 1 / {@value}. */
    private static final int SHARE_OF_REMAINING = 8;

    private final Policy policy;
    private long count;
    private Moment end;
    private long nextCount;
    private Moment nextEnd;
    /** The take in flight, completed when it lands or fails; null when none is. */
    private CompletableFuture<Void> taking;
    private long size = 1;
    private long spent;
    private long since;
    private long storeRemaining;
    private long fullAt;
    private long lastUsed;

    LeasePool(Policy policy, long nowMicros) {
        this.policy = policy;
        this.since = nowMicros;
        this.lastUsed = nowMicros;
        this.storeRemaining = policy.capacity();
    }

    Policy policy() {
        return policy;
    }

    /**
     * Permits spent from the blocks.
     *
     * @param outcome the request's outcome under this rule
     * @param end the end of the earliest block they came from: given back, they may not outlive it
     */
    record Spend(Outcome outcome, Moment end) {}

    /**
     * Spends {@code cost} permits of the blocks that have not ended.
     *
     * @return what a request served by the blocks spent, or null when they hold fewer than {@code cost}
     */
    synchronized Spend trySpend(long cost, Moment now, LeaseCounts.Counter counter) {
        dropEnded(now, counter);
        if (count + nextCount < cost) {
            return null;
        }
        Moment from = count > 0 ? end : nextEnd;
        long fromFirst = Math.min(count, cost);
        count -= fromFirst;
        nextCount -= cost - fromFirst;
        if (count == 0 && nextCount > 0) {
            count = nextCount;
            end = nextEnd;
            nextCount = 0;
        }
        spent += cost;
        long remaining = Math.min(policy.capacity(), storeRemaining + count + nextCount);
        return new Spend(Outcome.allow(policy.capacity(), remaining, Math.max(0, fullAt - now.appMicros())), from);
    }

    /**
     * Gives back permits {@link #trySpend} took for a request that another rule denied (they were never used): into
     * the block in use when it ends no later than the one they came from, else they lapse (a permit must not outlive
     * its block's lease).
     */
    synchronized void refund(Spend s, long cost, Moment now, LeaseCounts.Counter counter) {
        spent -= cost;
        if (count > 0 && end.notAfter(s.end()) && !end.reachedAt(now)) {
            count += cost;
        } else if (count == 0 && nextCount == 0 && !s.end().reachedAt(now)) {
            count = cost;                  // the block they came from, emptied meanwhile: it is theirs again
            end = s.end();
        } else {
            counter.lapsed(cost);
        }
    }

    /** A request of {@code cost} the store decided: what remains there, and the permits spent if admitted. */
    synchronized void observed(Outcome o, long cost, long nowMicros) {
        if (o.allowed()) {
            spent += cost;
        }
        storeRemaining = o.remaining();
        fullAt = nowMicros + o.resetAfterMicros();
    }

    /**
     * @return the size of the block to take now (at least 2), claiming the one take in flight; 0 when none is due:
     *     enough permits left, a take already in flight, or a block of one would do
     */
    synchronized long takeDue(long nowMicros) {
        lastUsed = Math.max(lastUsed, nowMicros);
        if (taking != null || (count + nextCount) * LOW_WATER > size) {
            return 0;
        }
        long elapsed = nowMicros - since;
        if (spent < 2) {
            return 0;       // a key seen once has no rate: a key that comes once never leases
        }
        long window = policy.leasedMicros();
        if (policy.algorithm() == Algorithm.FIXED_WINDOW) {
            window = Math.min(window, Math.max(0, fullAt - nowMicros));
        }
        // requests that came in no time (a clock read once for many) ask for as much as the next size may grow
        long want = elapsed <= 0 ? Long.MAX_VALUE : (long) Math.ceil((double) spent / elapsed * window);
        want = Math.min(want, 2 * size + 1);
        want = Math.min(want, Math.max(1, storeRemaining / SHARE_OF_REMAINING));
        spent = 0;
        since = nowMicros;
        size = Math.max(1, want);
        if (want < 2) {
            return 0;
        }
        taking = new CompletableFuture<>();
        return want;
    }

    /**
     * The block a take got: {@code k} permits until {@code blockEnd}; the store's outcome of the take, sent at
     * {@code sentMicros}. A block that ended before it landed (a take slower than the lease) lapses whole.
     */
    synchronized void landed(long k, Moment blockEnd, Outcome o, long sentMicros, Moment now,
            LeaseCounts.Counter counter) {
        done();
        storeRemaining = o.remaining();
        fullAt = sentMicros + o.resetAfterMicros();
        if (blockEnd.reachedAt(now)) {
            counter.lapsed(k);
        } else if (count == 0) {
            count = k;
            end = blockEnd;
        } else if (nextCount == 0) {
            nextCount = k;
            nextEnd = blockEnd;
        } else {
            nextCount += k;            // a third block joins the second and ends with it, never later
            nextEnd = nextEnd.earliest(blockEnd);
        }
    }

    /** A take the store refused or could not answer: what it said remains, when it said it. */
    synchronized void refused(Outcome o, long nowMicros) {
        done();
        if (o != null) {
            storeRemaining = o.remaining();
            fullAt = nowMicros + o.resetAfterMicros();
            size = 1;
        }
    }

    /** @return the take in flight, done when it has landed or failed; null when none is */
    synchronized CompletableFuture<Void> inFlight() {
        return taking;
    }

    private void done() {
        if (taking != null) {
            taking.complete(null);
            taking = null;
        }
    }

    /** @return the latest time a decision of the key asked whether a take is due: when the pool was last used */
    synchronized long lastUsed() {
        return lastUsed;
    }

    /** @return the permits the blocks still hold (tests and lapse accounting) */
    synchronized long held() {
        return count + nextCount;
    }

    /** Lets the permits of ended blocks lapse. */
    private void dropEnded(Moment now, LeaseCounts.Counter counter) {
        if (count > 0 && end.reachedAt(now)) {
            counter.lapsed(count);
            count = 0;
        }
        if (nextCount > 0 && nextEnd.reachedAt(now)) {
            counter.lapsed(nextCount);
            nextCount = 0;
        }
        if (count == 0 && nextCount > 0) {
            count = nextCount;
            end = nextEnd;
            nextCount = 0;
        }
    }
}
