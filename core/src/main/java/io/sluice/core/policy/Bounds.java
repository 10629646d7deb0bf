package io.sluice.core.policy;

import io.sluice.core.config.ConfigException;

/** The bounds every policy's numbers keep, checked by {@link Policy} and by each algorithm's {@link Settings}. */
final class Bounds {

    /** Periods are capped at 366 days so that microsecond arithmetic never overflows. */
    static final long MAX_PERIOD_MICROS = 366L * 24 * 3600 * 1_000_000;
    /** Limits are capped at one billion permits per period. */
    static final long MAX_LIMIT = 1_000_000_000L;

    private Bounds() {}

    static void check(boolean ok, String parameter, long value, String expectation) {
        if (!ok) {
            throw new ConfigException(parameter, Long.toString(value), expectation);
        }
    }

    /** A duration option between {@code least} µs and 366 days; {@code what} names it in the message. */
    static void duration(String parameter, long micros, long least, String what) {
        check(micros >= least && micros <= MAX_PERIOD_MICROS, parameter, micros, "expected " + what + " between "
                + (least == 0 ? "0" : "1 microsecond") + " and 366 days (in microseconds)");
    }

    /** A count option between 0 and a billion. */
    static void count(String parameter, long value, String unit) {
        check(value >= 0 && value <= MAX_LIMIT, parameter, value,
                "expected a " + parameter + " between 0 and " + MAX_LIMIT + unit);
    }

    /**
     * A bucket's span, capacity x interval, at most {@link Policy#MAX_SPAN_MICROS}; the product may pass 2^63 (a
     * billion x 366 days), so it is compared by division, which cannot overflow.
     */
    static void span(long capacity, long limit, long periodMicros) {
        long interval = Policy.intervalMicros(limit, periodMicros);
        check(capacity <= Policy.MAX_SPAN_MICROS / interval, "burst", capacity,
                "expected capacity (burst, else limit) x interval (period / limit) = " + capacity + " x " + interval
                        + " microseconds to be at most 2^52 microseconds (about 142 years)");
    }

    /** @return {@code value} clamped into the range of an int, so that a range check refuses it rather than a cast */
    static int saturated(long value) {
        return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, value));
    }

    static IllegalArgumentException unknown(Settings settings, String option) {
        return new IllegalArgumentException(settings.algorithm() + " takes no option \"" + option + "\"");
    }
}
