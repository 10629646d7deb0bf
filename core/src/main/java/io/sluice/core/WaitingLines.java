package io.sluice.core;

import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.PolicyParser;
import io.sluice.core.time.Sleeper;
import io.sluice.core.time.TimeSource;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongFunction;

/**
 * The waiting behind {@link Limiter#acquire(String, long)} and {@link Limiter#tryAcquire(String, long, Duration)} (and
 * their {@link KeyLimiter} forms): one line per limit name and key, first come first served.
 *
 * <p><b>The line.</b> A caller joins the line of its name and key and waits, parked, until it is first. Only the first
 * asks: it tries to take its permits, and while the store denies it parks until the outcome's retry time (the store says
 * when; nothing spins), then asks again. Once admitted, or given up, it leaves, and unparks the next. So a permit that
 * comes back goes to the caller that has waited longest in this JVM, whatever its cost; a newcomer, whatever it asks,
 * queues behind, and a waiter cannot be starved by a stream of newcomers. Callers of the non-blocking
 * {@code tryAcquire} do not queue: they take a permit that is there, as {@link java.util.concurrent.Semaphore#tryAcquire()}
 * does on a fair semaphore.
 *
 * <p><b>Deadlines.</b> A caller of {@code tryAcquire} gives up as soon as it knows it cannot be served in time: first,
 * when a denial's retry time is past its deadline; in line, when the first will ask again only after it (the first,
 * learning its retry time, unparks those it rules out), or when its deadline comes.
 *
 * <p><b>Memory.</b> A line exists only while a caller is in it: the last to leave removes it. The map holds at most one
 * line per thread in a blocking call, so keys nobody waits on (any number of them, hostile ones included) take no
 * memory here.
 *
 * <p><b>Time.</b> Every wait goes through the {@link Sleeper} of the engine's {@link TimeSource}; the deadline of
 * {@code tryAcquire} and the time waited are read from that clock.
 *
 * <p><b>Interruption.</b> A wait ends with {@link InterruptedException} as soon as the thread is interrupted (and at once
 * when it is interrupted on entry); the caller leaves the line. It has taken nothing: a denied attempt consumes nothing,
 * and an allowed one ends the wait, except in queue mode, where the admitted caller is held for the outcome's delay
 * with its permits taken.
 */
final class WaitingLines {

    private final TimeSource time;
    private final Sleeper sleeper;
    private final ConcurrentHashMap<LineKey, Line> lines = new ConcurrentHashMap<>();

    WaitingLines(TimeSource time, Sleeper sleeper) {
        this.time = time;
        this.sleeper = sleeper;
    }

    /** The callers waiting for one key of one limit, first first. */
    private record LineKey(String name, String key) {}

    /** A caller in a line, and the deadline by which it gives up. */
    private record Waiter(Thread thread, long deadline) {}

    private static final class Line {
        /** Guarded by this line. */
        private final ArrayDeque<Waiter> waiting = new ArrayDeque<>();
        /** Set, under this line, by the last to leave, which removes the line from the map: a newcomer takes another. */
        private boolean closed;
        /** When the first asks the store again, by the clock; 0 while that is unknown. Guarded by this line. */
        private long firstAsksAgainAt;
    }

    /**
     * See {@link Limiter#acquire(String, long)}.
     *
     * @param attempt one non-blocking try for a cost: the limiter's {@code tryAcquire}
     * @return the time waited, by the engine's clock
     */
    Duration acquire(Limiter limiter, String key, long cost, LongFunction<Outcome> attempt)
            throws InterruptedException {
        long start = time.nowMicros();
        Outcome outcome = await(limiter, key, cost, Sleeper.NO_DEADLINE, attempt);
        if (!outcome.allowed()) {       // with no deadline, only an outcome that never passes ends the wait denied
            throw never(limiter, cost);
        }
        holdFor(outcome);
        return Duration.ofNanos(Math.max(0, time.nowMicros() - start) * 1_000);
    }

    /** See {@link Limiter#tryAcquire(String, long, Duration)}. */
    boolean tryAcquire(Limiter limiter, String key, long cost, Duration timeout, LongFunction<Outcome> attempt)
            throws InterruptedException {
        if (timeout == null) {
            throw new IllegalArgumentException("timeout is required");
        }
        long deadline = plus(time.nowMicros(), micros(timeout));
        Outcome outcome = await(limiter, key, cost, deadline, attempt);
        if (outcome == null || !outcome.allowed()) {
            return false;
        }
        holdFor(outcome);
        return true;
    }

    /**
     * Waits in the key's line, then asks until admitted.
     *
     * @param deadline by the clock; {@link Sleeper#NO_DEADLINE}: none
     * @return the outcome that admitted the caller; the one that never passes; a denial whose retry time is after the
     *     deadline; or null when the deadline passed, or will have before the caller can be first
     */
    private Outcome await(Limiter limiter, String key, long cost, long deadline, LongFunction<Outcome> attempt)
            throws InterruptedException {
        if (key == null) {
            throw new IllegalArgumentException("key is required");
        }
        if (cost < 0) {
            throw new IllegalArgumentException("cost must be >= 0, got " + cost);
        }
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        Waiter me = new Waiter(Thread.currentThread(), deadline);
        LineKey lineKey = new LineKey(limiter.name(), key);
        Line line = join(lineKey, me);
        try {
            while (true) {
                synchronized (line) {
                    if (line.waiting.peekFirst() == me) {
                        break;
                    }
                    if (line.firstAsksAgainAt > deadline) {
                        return null;        // admitted after the first at the earliest: too late
                    }
                }
                if (time.nowMicros() >= deadline) {
                    return null;
                }
                park(deadline);
            }
            while (true) {
                Outcome outcome = attempt.apply(cost);
                if (outcome.allowed() || outcome.never()) {
                    return outcome;
                }
                long again = plus(time.nowMicros(), outcome.retryAfterMicros());
                if (again > deadline) {
                    return outcome;         // Guava's tryAcquire: no wait that cannot end in a permit in time
                }
                synchronized (line) {
                    line.firstAsksAgainAt = again;
                    for (Waiter w : line.waiting) {
                        if (w.deadline() < again) {
                            LockSupport.unpark(w.thread());      // it cannot be served in time: it gives up now
                        }
                    }
                }
                while (time.nowMicros() < again) {
                    park(again);
                }
            }
        } finally {
            leave(lineKey, line, me);
        }
    }

    /** Holds an admitted caller for the delay of a queue-mode outcome, its permits taken. */
    private void holdFor(Outcome admitted) throws InterruptedException {
        if (admitted.delayMicros() > 0) {
            long until = plus(time.nowMicros(), admitted.delayMicros());
            while (time.nowMicros() < until) {
                park(until);
            }
        }
    }

    private void park(long deadline) throws InterruptedException {
        sleeper.parkUntil(deadline);
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
    }

    private Line join(LineKey lineKey, Waiter me) {
        while (true) {
            Line line = lines.computeIfAbsent(lineKey, k -> new Line());
            synchronized (line) {
                if (!line.closed) {
                    line.waiting.addLast(me);
                    return line;
                }
            }
            // its last caller is leaving and has removed it from the map: the next lookup makes another
        }
    }

    private void leave(LineKey lineKey, Line line, Waiter me) {
        synchronized (line) {
            boolean wasFirst = line.waiting.peekFirst() == me;
            line.waiting.remove(me);
            if (line.waiting.isEmpty()) {
                line.closed = true;
                lines.remove(lineKey, line);
            } else if (wasFirst) {
                line.firstAsksAgainAt = 0;
                LockSupport.unpark(line.waiting.peekFirst().thread());
            }
        }
    }

    /** @return how many lines there are: one per key someone waits on (tests) */
    int size() {
        return lines.size();
    }

    private static IllegalArgumentException never(Limiter limiter, long cost) {
        return new IllegalArgumentException("a cost of " + cost + " can never be admitted by limit \"" + limiter.name()
                + "\" (" + PolicyParser.format(limiter.policy()) + "): acquire would wait forever");
    }

    /** @return the timeout in microseconds: 0 when negative, {@link Long#MAX_VALUE} when longer than that */
    private static long micros(Duration timeout) {
        if (timeout.isNegative()) {
            return 0;
        }
        if (timeout.getSeconds() >= Long.MAX_VALUE / 1_000_000 - 1) {
            return Long.MAX_VALUE;
        }
        return timeout.getSeconds() * 1_000_000 + timeout.getNano() / 1_000;
    }

    /** @return {@code a + b}, {@link Long#MAX_VALUE} on overflow ({@code b} >= 0) */
    private static long plus(long a, long b) {
        long sum = a + b;
        return sum < a ? Long.MAX_VALUE : sum;
    }
}
