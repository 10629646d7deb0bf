package io.sluice.core.policy;

import io.sluice.core.config.ConfigException;
import java.util.List;

/**
 * The settings of {@link Algorithm#LEAKY_BUCKET}: its burst, and its queue. Without {@code max-wait} the bucket is a
 * meter that denies what does not fit; with it, a request that would fit within that wait is delayed instead, and
 * {@code delay} (nginx's) lets the first excess requests of a queue pass without waiting.
 *
 * @param burst the capacity of the bucket, 0 for the limit
 * @param maxWaitMicros the longest a request may be delayed, 0 for a meter that never delays
 * @param delay how many excess requests pass without waiting (needs {@code max-wait})
 */
public record LeakyBucketSettings(long burst, long maxWaitMicros, long delay) implements BucketSettings {

    /** A meter of the limit's capacity: nothing is delayed. */
    public static final LeakyBucketSettings DEFAULT = new LeakyBucketSettings(0, 0, 0);

    /** The option {@code max-wait DURATION}. */
    public static final Option MAX_WAIT = new Option("max-wait", Kind.DURATION);
    /** The option {@code delay N}. */
    public static final Option DELAY = new Option("delay", Kind.COUNT);
    private static final List<Option> OPTIONS = List.of(BURST, MAX_WAIT, DELAY);

    @Override
    public Algorithm algorithm() {
        return Algorithm.LEAKY_BUCKET;
    }

    @Override
    public List<Option> options() {
        return OPTIONS;
    }

    @Override
    public LeakyBucketSettings withBurst(long b) {
        return new LeakyBucketSettings(b, maxWaitMicros, delay);
    }

    @Override
    public Settings with(String option, long value) {
        if (option.equals(MAX_WAIT.name())) {
            return new LeakyBucketSettings(burst, value, delay);
        }
        if (option.equals(DELAY.name())) {
            return new LeakyBucketSettings(burst, maxWaitMicros, value);
        }
        return BucketSettings.super.with(option, value);
    }

    @Override
    public void format(StringBuilder out) {
        BucketSettings.super.format(out);
        if (maxWaitMicros > 0) {
            out.append(" max-wait ").append(PolicyParser.formatDuration(maxWaitMicros));
        }
        if (delay > 0) {
            out.append(" delay ").append(delay);
        }
    }

    @Override
    public void validate(long limit, long periodMicros) {
        Bounds.duration("max-wait", maxWaitMicros, 0, "a max-wait");
        Bounds.count("delay", delay, " requests");
        BucketSettings.super.validate(limit, periodMicros);
        if (delay > 0 && maxWaitMicros == 0) {
            throw delayWithoutQueue(limit, periodMicros);
        }
    }

    /**
     * {@code delay} lets the first requests of a queue pass without waiting; without {@code max-wait} the bucket is a
     * meter that queues nothing, so {@code delay} would change nothing. Refused, showing the notation with a max-wait
     * as long as the full bucket takes to drain (the longest any request of it could wait).
     */
    private ConfigException delayWithoutQueue(long limit, long periodMicros) {
        long drain = capacity(limit) * Policy.intervalMicros(limit, periodMicros);      // at most 2^52: checked above
        long wait = Math.min(Bounds.MAX_PERIOD_MICROS, (drain + 999) / 1_000 * 1_000);    // whole milliseconds
        Policy queue = new Policy(limit, periodMicros, new LeakyBucketSettings(burst, wait, delay), 0);
        return new ConfigException("delay queues requests only with max-wait, and alone changes nothing: add max-wait, such as \"" + PolicyParser.formatWithoutAlgorithm(queue) + "\" (as "
                + "long as the full bucket takes to drain), or drop delay");
    }

    @Override
    public long maxWaitMicros() {
        return maxWaitMicros;
    }

    /** @return the excess requests that pass without waiting: {@code delay}, at most the capacity */
    public long delayThreshold(long limit) {
        return Math.min(delay, capacity(limit));
    }
}
