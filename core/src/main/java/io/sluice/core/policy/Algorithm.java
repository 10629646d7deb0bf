package io.sluice.core.policy;

import io.sluice.core.config.ConfigException;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** The rate-limiting algorithms Sluice implements, each with a memory step and a Redis (Lua) twin. */
public enum Algorithm {
    /** A counter per window, windows aligned to the epoch (optionally staggered per key). Exact per window. */
    FIXED_WINDOW("fixed-window"),
    /** The current window plus the previous one weighted by its overlap. Approximate, two counters. */
    SLIDING_WINDOW("sliding-window"),
    /** One timestamp per admitted request; exact; optional minimum gap and counting of rejected attempts. */
    SLIDING_LOG("sliding-log"),
    /** Capacity ({@code burst}) refilled at {@code limit} per {@code period}, lazily. */
    TOKEN_BUCKET("token-bucket"),
    /** A level draining at {@code limit} per {@code period}, capacity {@code burst}; meter or queue. */
    LEAKY_BUCKET("leaky-bucket"),
    /** Generic cell rate algorithm: one theoretical arrival time per key. */
    GCRA("gcra"),
    /** Guava's smooth warm-up: a cold limiter starts slow and ramps to the stable rate. */
    WARM_UP("warm-up"),
    /** At most {@code limit} requests in flight per key, held as expiring leases. */
    CONCURRENCY("concurrency");

    private final String id;

    Algorithm(String id) {
        this.id = id;
    }

    /** @return the name used in configuration, such as {@code token-bucket} */
    public String id() {
        return id;
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

    @Override
    public String toString() {
        return id;
    }
}
