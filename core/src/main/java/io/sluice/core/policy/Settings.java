package io.sluice.core.policy;

import java.util.List;

/**
 * The settings an algorithm owns beside a {@link Policy}'s rate: a bucket's burst, a queue's wait, a sliding log's
 * minimum gap. Each algorithm has one type of its own ({@link GcraSettings}, {@link LeakyBucketSettings}, ...), which
 * says which options of the limit notation it takes, reads them, formats them and refuses the numbers it cannot apply;
 * {@link PolicyParser} and {@link Policy} know no algorithm's options. Immutable; durations in microseconds.
 */
public interface Settings {

    /** How an option's value is written in the limit notation. */
    enum Kind {
        /** A whole number: {@code burst 20}. */
        COUNT,
        /** A duration, handed over in microseconds: {@code max-wait 2s}. */
        DURATION,
        /** A word on its own, handed over as 1: {@code staggered}. */
        FLAG
    }

    /**
     * One option of the limit notation.
     *
     * @param name its word in the notation, such as {@code burst}
     * @param kind how its value is written
     */
    record Option(String name, Kind kind) {}

    /** @return the algorithm these settings are for */
    Algorithm algorithm();

    /** @return the options of the limit notation these settings take, in the order {@link #format} writes them */
    List<Option> options();

    /**
     * @param option one of {@link #options()}
     * @param value a count, a duration in microseconds, or 1 for a flag
     * @return these settings with {@code option} set to {@code value}; bounds are checked when the policy is built
     */
    Settings with(String option, long value);

    /** Appends the options that are not at their defaults, each with a leading space: {@code " burst 20"}. */
    void format(StringBuilder out);

    /**
     * Refuses numbers the algorithm cannot apply, with the rate of the policy they belong to (whose limit is already
     * checked, and whose period is checked next).
     *
     * @throws io.sluice.core.config.ConfigException naming the option, its value and what would do instead
     */
    void validate(long limit, long periodMicros);

    /** @return the requests that may pass at once for {@code limit} per period: a bucket's burst, else the limit */
    default long capacity(long limit) {
        return limit;
    }

    /** @return the longest a request may be delayed instead of denied (a queue), 0 when none is */
    default long maxWaitMicros() {
        return 0;
    }

    /** @return whether a denied request changes the state (a sliding log that counts rejected attempts) */
    default boolean recordsDenials() {
        return false;
    }

    /** @return the period of a policy these settings belong to, given the stated one (concurrency: its lease) */
    default long periodMicros(long stated) {
        return stated;
    }

    /**
     * @param nodes the number of nodes that share the policy, at least 2
     * @param intervalMicros the emission interval of the share ({@code period / (limit / nodes)})
     * @return the settings of one node's share of the policy (the local fallback): a burst divided among the nodes
     */
    default Settings share(long nodes, long intervalMicros) {
        return this;
    }
}
