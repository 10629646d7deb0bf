package io.sluice.core;

/**
 * An instant on two clocks: the engine's ({@link io.sluice.core.time.TimeSource}, what the store counts by) and a
 * monotonic one ({@link System#nanoTime()} in µs, which no step of the wall clock moves). A leased block ends at the
 * first of its two ends, so that it never outlives its lease on either: the store's accounting, or real time.
 *
 * @param appMicros the engine's time, epoch µs
 * @param monoMicros the monotonic clock, µs from an arbitrary origin
 */
record Moment(long appMicros, long monoMicros) {

    /** @return this moment {@code micros} later on both clocks */
    Moment plus(long micros) {
        return new Moment(appMicros + micros, monoMicros + micros);
    }

    /** @return whether {@code now} has reached this moment on either clock */
    boolean reachedAt(Moment now) {
        return now.appMicros >= appMicros || now.monoMicros - monoMicros >= 0;
    }

    /** @return whether this moment comes no later than {@code other} on both clocks */
    boolean notAfter(Moment other) {
        return appMicros <= other.appMicros && monoMicros - other.monoMicros <= 0;
    }

    /** @return the earlier of the two on each clock */
    Moment earliest(Moment other) {
        return new Moment(Math.min(appMicros, other.appMicros),
                monoMicros - other.monoMicros <= 0 ? monoMicros : other.monoMicros);
    }
}
