package io.sluice.core.policy;

import io.sluice.core.config.ConfigException;
import java.util.List;

/**
 * The settings of {@link Algorithm#SLIDING_LOG}.
 *
 * @param minIntervalMicros the minimum gap between two admitted requests, 0 for none
 * @param countRejected whether rejected attempts are recorded too (a client that keeps trying stays limited)
 */
public record SlidingLogSettings(long minIntervalMicros, boolean countRejected) implements Settings {

    /** No minimum gap; rejected attempts are not recorded. */
    public static final SlidingLogSettings DEFAULT = new SlidingLogSettings(0, false);
    /** The sliding log keeps one timestamp per permit: its limit is capped at {@value}. */
    public static final long MAX_LIMIT = 100_000;

    /** The option {@code min-interval DURATION}. */
    public static final Option MIN_INTERVAL = new Option("min-interval", Kind.DURATION);
    /** The option {@code count-rejected}. */
    public static final Option COUNT_REJECTED = new Option("count-rejected", Kind.FLAG);
    private static final List<Option> OPTIONS = List.of(MIN_INTERVAL, COUNT_REJECTED);

    @Override
    public Algorithm algorithm() {
        return Algorithm.SLIDING_LOG;
    }

    @Override
    public List<Option> options() {
        return OPTIONS;
    }

    @Override
    public Settings with(String option, long value) {
        if (option.equals(MIN_INTERVAL.name())) {
            return new SlidingLogSettings(value, countRejected);
        }
        if (option.equals(COUNT_REJECTED.name())) {
            return new SlidingLogSettings(minIntervalMicros, value != 0);
        }
        throw Bounds.unknown(this, option);
    }

    @Override
    public void format(StringBuilder out) {
        if (minIntervalMicros > 0) {
            out.append(" min-interval ").append(PolicyParser.formatDuration(minIntervalMicros));
        }
        if (countRejected) {
            out.append(" count-rejected");
        }
    }

    /** One timestamp per permit: the limit is capped at {@value #MAX_LIMIT}. */
    @Override
    public void validate(long limit, long periodMicros) {
        Bounds.duration("min-interval", minIntervalMicros, 0, "a min-interval");
        if (limit > MAX_LIMIT) {
            throw new ConfigException("limit", Long.toString(limit), "the sliding log keeps one timestamp per"
                    + " permit, so its limit is at most " + MAX_LIMIT + "; use sliding-window for larger limits");
        }
    }

    @Override
    public boolean recordsDenials() {
        return countRejected;
    }
}
