package io.sluice.core.testing;

import io.sluice.core.time.Sleeper;
import io.sluice.core.time.TimeSource;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A time source that moves only when a test says so. Starts at a whole day since the epoch (windows align).
 *
 * <p>It is its own {@link Sleeper}: a thread that waits for an instant of this clock parks until the test moves the
 * clock there ({@link #advance}, {@link #advanceMicros}, {@link #set} wake every thread whose instant has come), so a
 * timeline of blocking calls runs with no real sleep. {@link #awaitParked(Thread, long)} lets a test wait until a thread
 * has reached its wait, for a deterministic order of events.
 */
public final class ManualTimeSource implements TimeSource, Sleeper {

    /** 2023-11-14T00:00:00Z in microseconds: a whole number of days, so every window boundary falls on it. */
    public static final long START_MICROS = 19_675L * 86_400_000_000L;

    /** How long {@link #awaitParked} waits for a thread, in real time, before it fails the test. */
    private static final long AWAIT_MILLIS = 10_000;

    private final AtomicLong now = new AtomicLong(START_MICROS);
    /** The threads parked on this clock, with their deadlines. */
    private final Map<Thread, Long> parked = new ConcurrentHashMap<>();
    private final AtomicLong parks = new AtomicLong();

    @Override
    public long nowMicros() {
        return now.get();
    }

    public ManualTimeSource advance(Duration d) {
        now.addAndGet(d.toNanos() / 1_000);
        wake();
        return this;
    }

    public ManualTimeSource advanceMicros(long micros) {
        now.addAndGet(micros);
        wake();
        return this;
    }

    public ManualTimeSource set(long epochMicros) {
        now.set(epochMicros);
        wake();
        return this;
    }

    /** Moves the clock without waking anyone: the parked threads stay parked until {@link #wake()} (races, by hand). */
    public ManualTimeSource advanceQuietly(Duration d) {
        now.addAndGet(d.toNanos() / 1_000);
        return this;
    }

    /** Unparks every thread parked on this clock whose deadline has come. */
    public void wake() {
        long t = now.get();
        parked.forEach((thread, deadline) -> {
            if (deadline <= t) {
                LockSupport.unpark(thread);
            }
        });
    }

    /**
     * Parks until this clock reaches {@code deadlineMicros} (moved by the test), an unpark, or an interrupt; see
     * {@link Sleeper#parkUntil}.
     */
    @Override
    public void parkUntil(long deadlineMicros) {
        Thread me = Thread.currentThread();
        parks.incrementAndGet();
        parked.put(me, deadlineMicros);     // before the clock is read: a move after the read unparks this thread
        signal();
        try {
            if (now.get() < deadlineMicros) {
                LockSupport.park(this);
            }
        } finally {
            parked.remove(me);
            signal();
        }
    }

    /** @return how many times a thread has parked on this clock (or returned at once, its deadline passed) */
    public long parks() {
        return parks.get();
    }

    /**
     * Waits, in real time (at most 10 s, then fails), until {@code thread} is parked on this clock until
     * {@code deadlineMicros} ({@link Sleeper#NO_DEADLINE}: waiting for an unpark).
     */
    public void awaitParked(Thread thread, long deadlineMicros) {
        long end = System.nanoTime() + AWAIT_MILLIS * 1_000_000;
        synchronized (parked) {
            while (!Long.valueOf(deadlineMicros).equals(parked.get(thread))) {
                long left = (end - System.nanoTime()) / 1_000_000;
                if (left <= 0) {
                    throw new AssertionError(thread.getName() + " did not park until " + deadlineMicros
                            + " (parked: " + parked + ", state " + thread.getState() + ")");
                }
                try {
                    parked.wait(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError("interrupted", e);
                }
            }
        }
    }

    /** @return how many threads are parked on this clock now */
    public int parkedThreads() {
        return parked.size();
    }

    private void signal() {
        synchronized (parked) {
            parked.notifyAll();
        }
    }
}
