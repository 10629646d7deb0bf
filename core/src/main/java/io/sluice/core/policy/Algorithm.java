package io.sluice.core.policy;

import io.sluice.core.config.ConfigException;
import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The rate-limiting algorithms Sluice implements, each with a memory step and a Redis (Lua) twin; each constant says
 * which of a {@link Policy}'s settings are its own (its options in the limit notation, whether it takes a burst) and
 * refuses the numbers it cannot apply.
 */
public enum Algorithm {
    /** A counter per window, windows aligned to the epoch (optionally staggered per key). Exact per window. */
    FIXED_WINDOW("fixed-window", false, "staggered"),
    /** The current window plus the previous one weighted by its overlap. Approximate, two counters. */
    SLIDING_WINDOW("sliding-window", false),
    /** One timestamp per admitted request; exact; optional minimum gap and counting of rejected attempts. */
    SLIDING_LOG("sliding-log", false, "min-interval", "count-rejected") {
        /** One timestamp per permit: the limit is capped at {@value Policy#MAX_SLIDING_LOG_LIMIT}. */
        @Override
        void validate(Policy p) {
            if (p.limit() > Policy.MAX_SLIDING_LOG_LIMIT) {
                throw new ConfigException("limit", Long.toString(p.limit()), "the sliding log keeps one timestamp per"
                        + " permit, so its limit is at most " + Policy.MAX_SLIDING_LOG_LIMIT + "; use sliding-window"
                        + " for larger limits");
            }
        }
    },
    /** Capacity ({@code burst}) refilled at {@code limit} per {@code period}, lazily. */
    TOKEN_BUCKET("token-bucket", true),
    /** A level draining at {@code limit} per {@code period}, capacity {@code burst}; meter or queue. */
    LEAKY_BUCKET("leaky-bucket", true, "max-wait", "delay"),
    /** Generic cell rate algorithm: one theoretical arrival time per key. */
    GCRA("gcra", true),
    /** Guava's smooth warm-up: a cold limiter starts slow and ramps to the stable rate. */
    WARM_UP("warm-up", false, "warm-up") {
        @Override
        void validate(Policy p) {
            if (p.warmupMicros() == 0) {
                throw new ConfigException("warm-up", "0", "a warm-up policy needs a positive warm-up period");
            }
            if (p.limit() > p.periodMicros()) {
                // its waits are whole microseconds, truncated: below 1 µs per permit a request would cost no time
                throw new ConfigException("limit", Long.toString(p.limit()), "warm-up spaces requests at least 1"
                        + " microsecond apart, so its limit is at most its period in microseconds (" + p.periodMicros()
                        + "); use fixed-window or sliding-window for a higher rate");
            }
        }
    },
    /** At most {@code limit} requests in flight per key, held as expiring leases. */
    CONCURRENCY("concurrency", false);

    private final String id;
    private final boolean bursts;
    private final Set<String> options;

    Algorithm(String id, boolean bursts, String... options) {
        this.id = id;
        this.bursts = bursts;
        this.options = Set.of(options);
    }

    /** @return the name used in configuration, such as {@code token-bucket} */
    public String id() {
        return id;
    }

    /** @return whether it takes a {@code burst}: the capacity of a bucket that refills (the limit a client is told) */
    public boolean bursts() {
        return bursts;
    }

    /**
     * @return the options of the limit notation that only this algorithm takes: a notation that names no algorithm and
     *     gives one of them means this algorithm ({@code max-wait} means the leaky bucket)
     */
    Set<String> options() {
        return options;
    }

    /**
     * Refuses a policy whose numbers this algorithm cannot apply; {@link Policy} has checked its own bounds already.
     *
     * @throws ConfigException naming the setting, its value and what would do instead
     */
    void validate(Policy p) {}

    /**
     * Parses a configuration name ({@code gcra}, {@code token-bucket}, case-insensitive, {@code _} or {@code -}).
     *
     * @throws ConfigException naming the value and the accepted names
     */
    public static Algorithm fromId(String parameter, String value) {
        String wanted = value == null ? "" : value.trim().toLowerCase(Locale.ROOT).replace('_', '-');
        for (Algorithm a : values()) {
            if (a.id.equals(wanted)) {
                return a;
            }
        }
        throw new ConfigException(parameter, value, "expected one of "
                + Arrays.stream(values()).map(Algorithm::id).collect(Collectors.joining(", ")));
    }

    @Override
    public String toString() {
        return id;
    }
}
