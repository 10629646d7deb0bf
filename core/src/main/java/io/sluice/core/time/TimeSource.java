package io.sluice.core.time;

/**
 * Where "now" comes from: epoch microseconds. The only type in Sluice that reads the system clock;
 * algorithms receive {@code nowMicros} as an argument and stores read a time source once per request.
 */
@FunctionalInterface
public interface TimeSource {

    /** @return the current time in microseconds since the epoch */
    long nowMicros();

    /**
     * The default clock: epoch microseconds from {@link System#nanoTime()} against a wall-clock anchor that is
     * renewed at most once per second. Monotonic between anchors and about twice as cheap to read as the wall clock;
     * it may differ from the wall clock by the monotonic clock's drift over one second plus the error of pairing the
     * two clocks at the anchor (each anchor reads the monotonic clock before and after the wall clock and is read
     * again while the two are more than 20 µs apart, so typically microseconds in all), and follows a step of the
     * wall clock within a second. Use {@link #wallClock()} to read the wall clock every time.
     *
     * @return the system clock, with microsecond resolution
     */
    static TimeSource system() {
        return SystemTimeSource.INSTANCE;
    }

    /** @return the wall clock, {@link java.time.Clock#systemUTC()}, read on every call (the default of earlier versions) */
    static TimeSource wallClock() {
        return WallClockTimeSource.INSTANCE;
    }
}
