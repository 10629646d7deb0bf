package io.sluice.core.store;

import io.sluice.core.algorithm.PrimitiveSteps;
import io.sluice.core.algorithm.Slots;
import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Policy;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * The state of one (rule, key), updated in place under its own lock: the algorithm that wrote it (null: empty),
 * the state (primitive slots for the algorithms of {@link PrimitiveSteps}, else an immutable state object), and
 * the store time at which it stops mattering. {@code removed} once it has left the cache: a holder looks again.
 */
final class Cell extends Slots {
    /**
     * The id of a cell that is never in the map: the fresh state of an absent key for an answer that writes nothing.
     * Real cells count from 1, so it sorts first among the locks of a request (it is private to the request: its lock
     * is never contended).
     */
    static final long SCRATCH_ID = 0;
    /** One hit in this many (a power of two) is recorded in Caffeine's eviction policy: {@value}. */
    static final int RECORD_EVERY = 16;
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
     * Counts a hit, and samples it: W-TinyLFU learns from one hit in {@value #RECORD_EVERY}.
     *
     * @return whether to record this hit in Caffeine's eviction policy
     */
    boolean sampleHit() {
        return (++hits & (RECORD_EVERY - 1)) == 0;
    }

    /**
     * Marks an empty cell (nothing written: a peek or a denial tracks no key) as removed, the caller then dropping it
     * from the map. Under the cell's lock.
     *
     * @return whether the cell is removed: emptied now, or already gone from the cache
     */
    boolean retireIfEmpty() {
        boolean empty = removed || algorithm == null;
        if (empty) {
            removed = true;
        }
        return empty;
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
