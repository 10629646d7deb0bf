package io.sluice.core.time;

import java.time.Clock;
import java.util.function.LongSupplier;

/**
 * The default clock: epoch microseconds derived from {@link System#nanoTime()} against an anchor read from the wall
 * clock ({@link Clock#systemUTC()}), re-anchored at most once per second.
 *
 * <p><b>Why:</b> reading {@code System.nanoTime()} costs about half of {@code Clock.systemUTC().instant()} (no
 * {@link Instant} to build, no seconds/nanos split), and every decision reads the clock once. Between two anchors
 * the time is monotonic and advances exactly with {@code nanoTime}.
 *
 * <p><b>Anchoring:</b> an anchor reads {@code nanoTime}, the wall clock, then {@code nanoTime} again, and pairs the
 * wall time with the midpoint of the two monotonic reads, so a pause between the reads (preemption, a safepoint) cannot
 * shift the time by the length of the pause: the pairing is off by at most half the gap between the two monotonic
 * reads. While that gap exceeds {@value #MAX_PAIRING_GAP_NANOS} ns the reads are repeated, {@value #ANCHOR_TRIES}
 * times at most. A re-anchor that gets no pair that tight (an overloaded machine) keeps the time running on from the
 * previous anchor, exactly, and tries again a second later; only the first anchor, having nothing to run on from,
 * takes the tightest pair it read (off by half its gap).
 *
 * <p><b>Trade-off:</b> the time lags or leads the wall clock by the drift of the monotonic clock since the last anchor
 * (on Linux both clocks are slewed alike by NTP, so typically a few microseconds over a second) plus the pairing
 * error, and a step of the wall clock (NTP step, manual change) is followed within a second instead of at once. At a
 * re-anchor the time may step by that drift and the pairing errors of the two anchors (at most 10 µs each, after the
 * first), backwards as well as forwards, and by the whole of a wall-clock step; every algorithm treats a backwards
 * step as "no time has passed" and never mints permits for it.
 */
final class SystemTimeSource implements TimeSource {

    /** Re-anchor to the wall clock after this many nanoseconds: {@value}. */
    static final long ANCHOR_NANOS = 1_000_000_000L;
    /** An anchor whose two monotonic reads are further apart than this ({@value} ns) is read again. */
    static final long MAX_PAIRING_GAP_NANOS = 20_000;
    /** Reads of one anchor at most: {@value}. */
    static final int ANCHOR_TRIES = 8;
    /** The one instance, {@link TimeSource#system()}. */
    static final SystemTimeSource INSTANCE = new SystemTimeSource(System::nanoTime,
            WallClockTimeSource.INSTANCE::nowMicros);

    /** The wall-clock time {@code epochMicros} read when {@code System.nanoTime()} was {@code nanos}. */
    record Anchor(long epochMicros, long nanos) {}

    private final LongSupplier nanoClock;
    private final LongSupplier wallClock;
    private volatile Anchor anchor;

    /** @param nanoClock the monotonic clock in nanoseconds; @param wallClock the wall clock in epoch microseconds */
    SystemTimeSource(LongSupplier nanoClock, LongSupplier wallClock) {
        this.nanoClock = nanoClock;
        this.wallClock = wallClock;
        this.anchor = anchor(nanoClock, wallClock, null);
    }

    @Override
    public long nowMicros() {
        long nanos = nanoClock.getAsLong();
        Anchor a = anchor;
        long elapsed = nanos - a.nanos;
        if (elapsed >= ANCHOR_NANOS) {      // negative only when another thread has just anchored: floorDiv copes
            a = anchor(nanoClock, wallClock, a);
            anchor = a;               // racing threads each write a fresh anchor: harmless
            elapsed = nanos - a.nanos;
        }
        return a.epochMicros + Math.floorDiv(elapsed, 1_000);
    }

    /**
     * Reads the monotonic clock, the wall clock and the monotonic clock again, up to {@link #ANCHOR_TRIES} times while
     * the two monotonic reads are more than {@link #MAX_PAIRING_GAP_NANOS} apart.
     *
     * @param previous the anchor in use, or null
     * @return the first pair read tightly enough: the wall time with the midpoint of its two monotonic reads; when
     *     none is, {@code previous} carried forward to about the last read (the same time line, exactly), or without a
     *     previous anchor the tightest pair read
     */
    static Anchor anchor(LongSupplier nanoClock, LongSupplier wallClock, Anchor previous) {
        Anchor best = null;
        long bestGap = Long.MAX_VALUE;
        for (int i = 0; i < ANCHOR_TRIES; i++) {
            long before = nanoClock.getAsLong();
            long wall = wallClock.getAsLong();
            long after = nanoClock.getAsLong();
            long gap = after - before;
            if (gap >= 0 && gap < bestGap) {
                best = new Anchor(wall, before + gap / 2);
                bestGap = gap;
            }
            if (bestGap <= MAX_PAIRING_GAP_NANOS) {
                return best;
            }
        }
        if (previous != null) {
            long micros = Math.floorDiv(nanoClock.getAsLong() - previous.nanos, 1_000);
            return new Anchor(previous.epochMicros + micros, previous.nanos + micros * 1_000);
        }
        return best != null ? best : new Anchor(wallClock.getAsLong(), nanoClock.getAsLong());
    }

    @Override
    public String toString() {
        return "TimeSource.system()";
    }
}
