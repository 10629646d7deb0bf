package io.sluice.core.policy;

import io.sluice.core.config.ConfigException;
import java.util.List;

/**
 * The settings of {@link Algorithm#WARM_UP} (Guava's smooth warm-up).
 *
 * @param warmupMicros the time a cold limiter takes to reach the stable rate, positive
 * @param coldFactor the cold interval is {@code coldFactor} times the stable one, between 1 and 1000
 */
public record WarmUpSettings(long warmupMicros, int coldFactor) implements Settings {

    /** Default cold factor, as in Guava: {@value}. */
    public static final int DEFAULT_COLD_FACTOR = 3;

    /** The option {@code warm-up DURATION}. */
    public static final Option WARM_UP = new Option("warm-up", Kind.DURATION);
    /** The option {@code cold-factor N}. */
    public static final Option COLD_FACTOR = new Option("cold-factor", Kind.COUNT);
    private static final List<Option> OPTIONS = List.of(WARM_UP, COLD_FACTOR);

    /** @return a warm-up over {@code warmupMicros} with the default cold factor */
    public static WarmUpSettings over(long warmupMicros) {
        return new WarmUpSettings(warmupMicros, DEFAULT_COLD_FACTOR);
    }

    @Override
    public Algorithm algorithm() {
        return Algorithm.WARM_UP;
    }

    @Override
    public List<Option> options() {
        return OPTIONS;
    }

    @Override
    public Settings with(String option, long value) {
        if (option.equals(WARM_UP.name())) {
            return new WarmUpSettings(value, coldFactor);
        }
        if (option.equals(COLD_FACTOR.name())) {
            return new WarmUpSettings(warmupMicros, Bounds.saturated(value));
        }
        throw Bounds.unknown(this, option);
    }

    /** The warm-up always (its default is the period, which a reader should not have to know). */
    @Override
    public void format(StringBuilder out) {
        out.append(" warm-up ").append(PolicyParser.formatDuration(warmupMicros));
        if (coldFactor != DEFAULT_COLD_FACTOR) {
            out.append(" cold-factor ").append(coldFactor);
        }
    }

    @Override
    public void validate(long limit, long periodMicros) {
        Bounds.duration("warm-up", warmupMicros, 0, "a warm-up period");
        if (warmupMicros == 0) {
            throw new ConfigException("warm-up", "0", "a warm-up policy needs a positive warm-up period");
        }
        Bounds.check(coldFactor >= 1 && coldFactor <= 1000, "cold-factor", coldFactor,
                "expected a factor between 1 and 1000");
        if (periodMicros >= 1 && limit > periodMicros) {
            // its waits are whole microseconds, truncated: below 1 µs per permit a request would cost no time
            throw new ConfigException("limit", Long.toString(limit), "warm-up spaces requests at least 1 microsecond"
                    + " apart, so its limit is at most its period in microseconds (" + periodMicros + "); use"
                    + " fixed-window or sliding-window for a higher rate");
        }
    }
}
