package io.sluice.core.policy;

import io.sluice.core.config.ConfigException;
import java.util.Arrays;
import java.util.Locale;
import java.util.function.LongFunction;
import java.util.stream.Collectors;

/**
 * The rate-limiting algorithms Sluice implements, each with a memory step and a Redis (Lua) twin. Each constant names
 * the type of its own settings by their defaults ({@link #defaults}); the settings say which options of the limit
 * notation the algorithm takes and which numbers it refuses.
 */
public enum Algorithm {
    /** A counter per window, windows aligned to the epoch (optionally staggered per key). Exact per window. */
    FIXED_WINDOW("fixed-window", period -> FixedWindowSettings.DEFAULT),
    /** The current window plus the previous one weighted by its overlap. Approximate, two counters. */
    SLIDING_WINDOW("sliding-window", period -> SlidingWindowSettings.DEFAULT),
    /** One timestamp per admitted request; exact; optional minimum gap and counting of rejected attempts. */
    SLIDING_LOG("sliding-log", period -> SlidingLogSettings.DEFAULT),
    /** Capacity ({@code burst}) refilled at {@code limit} per {@code period}, lazily. */
    TOKEN_BUCKET("token-bucket", period -> TokenBucketSettings.DEFAULT),
    /** A level draining at {@code limit} per {@code period}, capacity {@code burst}; meter or queue. */
    LEAKY_BUCKET("leaky-bucket", period -> LeakyBucketSettings.DEFAULT),
    /** Generic cell rate algorithm: one theoretical arrival time per key. */
    GCRA("gcra", period -> GcraSettings.DEFAULT),
    /** Guava's smooth warm-up: a cold limiter starts slow and ramps to the stable rate (by default over a period). */
    WARM_UP("warm-up", WarmUpSettings::over),
    /** At most {@code limit} requests in flight per key, held as expiring leases (by default for the period). */
    CONCURRENCY("concurrency", ConcurrencySettings::new),
    /**
     * Concurrency whose limit finds itself on each node, from the latency and failures of the requests it admits
     * (TCP Vegas' delay-based rule, see {@link io.sluice.core.algorithm.AdaptiveLimit}); held as concurrency leases, and
     * always decided by this node ({@code Engine}).
     */
    ADAPTIVE_CONCURRENCY("adaptive-concurrency", AdaptiveConcurrencySettings::over);

    private final String id;
    private final LongFunction<Settings> defaults;

    Algorithm(String id, LongFunction<Settings> defaults) {
        this.id = id;
        this.defaults = defaults;
    }

    /** @return the name used in configuration, such as {@code token-bucket} */
    public String id() {
        return id;
    }

    /**
     * @param periodMicros the period of the policy they are for
     * @return this algorithm's settings, each at its default
     */
    public Settings defaults(long periodMicros) {
        return defaults.apply(periodMicros);
    }

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

    /**
     * @return whether nodes may lease this algorithm's permits in blocks ({@link Policy#leasedMicros()}): GCRA, the
     *     token bucket and the fixed window, whose permits are counted when taken, whenever they are spent
     */
    public boolean leases() {
        return this == GCRA || this == TOKEN_BUCKET || this == FIXED_WINDOW;
    }

    /**
     * @return whether the engine decides it on each node, in place of a store ({@link #ADAPTIVE_CONCURRENCY}, whose
     *     limit is the node's own): no store runs it, so it has no {@code Definition} and no Lua twin
     */
    public boolean local() {
        return this == ADAPTIVE_CONCURRENCY;
    }

    /** @return whether it limits requests in flight, with leases ({@code <n> concurrent}): concurrency, adaptive or not */
    public boolean concurrent() {
        return this == CONCURRENCY || this == ADAPTIVE_CONCURRENCY;
    }

    @Override
    public String toString() {
        return id;
    }
}
