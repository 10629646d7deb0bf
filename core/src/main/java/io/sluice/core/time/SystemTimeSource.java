package io.sluice.core.time;

import java.time.Clock;
import java.time.Instant;

/**
 * The default clock: epoch microseconds derived from {@link System#nanoTime()} against an anchor read from the wall
 * clock ({@link Clock#systemUTC()}), re-anchored at most once per second.
 *
 * <p><b>Why:</b> reading {@code System.nanoTime()} costs about half of {@code Clock.systemUTC().instant()} (no
 * {@link Instant} to build, no seconds/nanos split), and every decision reads the clock once. Between two anchors
 * the time is monotonic and advances exactly with {@code nanoTime}.
 *
 * <p><b>Trade-off:</b> the time lags or leads the wall clock by the drift of the monotonic clock since the last anchor
 * (typically a few microseconds over a second), and a step of the wall clock (NTP step, manual change) is followed
 * within a second instead of at once. At a re-anchor the time may step by that drift, backwards as well as forwards;
 * every algorithm treats a backwards step as "no time has passed" and never mints permits for it.
 */
final class SystemTimeSource implements TimeSource {

    private static final Clock WALL = Clock.systemUTC();
    /** Re-anchor to the wall clock after this many nanoseconds: {@value}. */
    static final long ANCHOR_NANOS = 1_000_000_000L;
    /** The one instance, {@link TimeSource#system()}. */
    static final SystemTimeSource INSTANCE = new SystemTimeSource();

    /** The wall-clock time {@code epochMicros} read when {@code System.nanoTime()} was {@code nanos}. */
    private record Anchor(long epochMicros, long nanos) {}

    private volatile Anchor anchor = anchor();

    private SystemTimeSource() {}

    @Override
    public long nowMicros() {
        long nanos = System.nanoTime();
        Anchor a = anchor;
        long elapsed = nanos - a.nanos;
        if (elapsed >= ANCHOR_NANOS || elapsed < 0) {
            a = anchor();
            anchor = a;               // racing threads each write a fresh anchor: harmless
            elapsed = nanos - a.nanos;
        }
        return a.epochMicros + elapsed / 1_000;
    }

    /** @return the wall clock now, paired with the monotonic clock read just before it */
    private static Anchor anchor() {
        long nanos = System.nanoTime();
        Instant now = WALL.instant();
        return new Anchor(now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000, nanos);
    }

    @Override
    public String toString() {
        return "TimeSource.system()";
    }
}
