package io.sluice.core.time;

import java.util.concurrent.locks.LockSupport;

/**
 * How a thread waits for an instant of a {@link TimeSource}: the blocking calls of the programmatic API
 * ({@code Limiter.acquire}, {@code Limiter.tryAcquire} with a timeout, and their {@code KeyLimiter} forms) wait through
 * the sleeper of the engine's time source, {@link #of(TimeSource)}, so that a clock a test moves by hand runs their
 * timelines without a real sleep.
 *
 * <p>A sleeper parks the calling thread as {@link LockSupport} does: {@link LockSupport#unpark(Thread)} and an interrupt
 * end the wait as the deadline does, which is how a caller waiting its turn is told that its turn has come.
 */
public interface Sleeper {

    /** The deadline of a wait that only {@link LockSupport#unpark(Thread)} or an interrupt ends: {@value}. */
    long NO_DEADLINE = Long.MAX_VALUE;

    /**
     * Parks the calling thread until the clock reads {@code deadlineMicros} or later, until
     * {@link LockSupport#unpark(Thread)} is called for it, until it is interrupted, or for no reason at all (a spurious
     * return, as {@link LockSupport#park()} allows): callers read the clock and their own state again after it returns,
     * and park again as they need. Returns at once when the deadline has passed. It neither throws on an interrupt nor
     * clears the interrupt status.
     *
     * @param deadlineMicros an instant of the clock (epoch microseconds), or {@link #NO_DEADLINE}
     */
    void parkUntil(long deadlineMicros);

    /**
     * The sleeper of a time source: the time source itself when it implements {@code Sleeper} (a manual clock in tests
     * wakes its sleepers as it moves), else one that parks with {@link LockSupport#parkNanos(Object, long)} for the time
     * that remains by that clock. A clock that moves faster or slower than real time is then waited on as if it did
     * not; the callers of a sleeper read the clock again when it returns, so an early return costs a second wait and a
     * late one only lateness.
     */
    static Sleeper of(TimeSource time) {
        if (time == null) {
            throw new IllegalArgumentException("time is required");
        }
        return time instanceof Sleeper own ? own : new ParkingSleeper(time);
    }
}
