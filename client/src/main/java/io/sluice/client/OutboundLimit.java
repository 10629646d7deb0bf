package io.sluice.client;

import io.sluice.core.Rule;
import io.sluice.core.config.ConfigException;
import io.sluice.core.policy.Policy;
import io.sluice.core.policy.PolicyParser;
import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One limit on outbound calls to a remote API: {@code OutboundLimit.builder("github", "5000/1h").key("acct-42")}. The
 * calls spend the named limit of an engine for the key (the remote account), so every node on the same store shares
 * one budget; what the remote answers ({@code 429}, {@code Retry-After}, {@code RateLimit}, {@code X-RateLimit-*})
 * pauses the key on every node until the remote's reset, at most {@link #maxRemotePause()}. Immutable; two limits are
 * equal when all their settings are.
 *
 * @param name the limit's name, part of the stored key: letters, digits, {@code .}, {@code _}, {@code -}, at most 64
 * @param policy the local limit, a rate (not a concurrency limit): never exceeded, lowered by what the remote publishes
 * @param key the partition: the remote account whose budget the fleet shares (default the name)
 * @param cost the permits one call takes (default 1)
 * @param maxWait the longest a call waits for a permit or for a pause to end before it fails (default 5 s)
 * @param maxRemotePause the longest the remote can pause the key with one answer (default 10 minutes): a longer time
 *     is cut to it
 * @param onStoreFailure what answers while the store cannot: {@code ALLOW} (the default) sends the call, {@code DENY}
 *     fails it, {@code LOCAL} spends this node's share
 * @param retries how many times a call answered 429 is sent again once the pause ends (default 0: never)
 * @param retryWithin the longest all of a call's retries may take together, waits included (default 30 s)
 * @param retryNonIdempotent whether a POST or PATCH is retried too (default false: GET, HEAD, OPTIONS, PUT, DELETE and
 *     TRACE only)
 * @param learnPolicy whether a {@code RateLimit-Policy} the remote publishes lowers the local limit (default true)
 */
public record OutboundLimit(String name, Policy policy, String key, long cost, Duration maxWait,
        Duration maxRemotePause, Rule.FailureMode onStoreFailure, int retries, Duration retryWithin,
        boolean retryNonIdempotent, boolean learnPolicy) {

    /** The default of {@link #maxWait()}: {@code 5s}. */
    public static final Duration DEFAULT_MAX_WAIT = Duration.ofSeconds(5);
    /** The default of {@link #maxRemotePause()}: {@code 10m}. */
    public static final Duration DEFAULT_MAX_REMOTE_PAUSE = Duration.ofMinutes(10);
    /** The most {@link #maxRemotePause()} can be: one day. */
    public static final Duration MAX_REMOTE_PAUSE = Duration.ofDays(1);
    /** The default of {@link #retryWithin()}: {@code 30s}. */
    public static final Duration DEFAULT_RETRY_WITHIN = Duration.ofSeconds(30);
    /** The most {@link #retries()}: {@value}. */
    public static final int MAX_RETRIES = 10;

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

    /**
     * @throws ConfigException naming the setting and its value when one is out of range
     */
    public OutboundLimit {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new ConfigException("name", String.valueOf(name),
                    "expected letters, digits, '.', '_' or '-', at most 64 characters, such as \"github\"");
        }
        Objects.requireNonNull(policy, "policy");
        if (policy.algorithm().concurrent()) {
            throw new ConfigException("limit", policy.toString(), "expected a rate such as \"100/1m\": an outbound "
                    + "call has no completion to release a concurrency lease with");
        }
        if (key == null || key.isEmpty()) {
            throw new ConfigException("key", String.valueOf(key), "expected the remote account's name, not empty");
        }
        if (cost < 1 || cost > policy.capacity()) {
            throw new ConfigException("cost", Long.toString(cost), "expected 1 to the limit's capacity ("
                    + policy.capacity() + ")");
        }
        requireWithin("max-wait", maxWait, Duration.ZERO, MAX_REMOTE_PAUSE);
        requireWithin("max-remote-pause", maxRemotePause, Duration.ofSeconds(1), MAX_REMOTE_PAUSE);
        Objects.requireNonNull(onStoreFailure, "onStoreFailure");
        if (retries < 0 || retries > MAX_RETRIES) {
            throw new ConfigException("retries", Integer.toString(retries), "expected 0 to " + MAX_RETRIES);
        }
        requireWithin("retry-within", retryWithin, Duration.ZERO, MAX_REMOTE_PAUSE);
    }

    private static void requireWithin(String parameter, Duration d, Duration least, Duration most) {
        if (d == null || d.compareTo(least) < 0 || d.compareTo(most) > 0) {
            throw new ConfigException(parameter, String.valueOf(d), "expected a duration from "
                    + PolicyParser.formatDuration(least.toNanos() / 1000) + " to "
                    + PolicyParser.formatDuration(most.toNanos() / 1000));
        }
    }

    /**
     * @param name the limit's name
     * @param limit the local limit in the limit notation ({@code "5000/1h"})
     * @return a builder with the defaults
     * @throws ConfigException when the notation is invalid
     */
    public static Builder builder(String name, String limit) {
        return new Builder(name, PolicyParser.parse("limit", limit, null));
    }

    /** @return a builder with the defaults and {@code policy} */
    public static Builder builder(String name, Policy policy) {
        return new Builder(name, policy);
    }

    /** @return whether a call of {@code method} answered 429 may be sent again */
    boolean retries(String method) {
        return retries > 0 && (retryNonIdempotent || idempotent(method));
    }

    /** @return whether {@code method} is idempotent (RFC 9110, section 9.2.2) */
    static boolean idempotent(String method) {
        return switch (method) {
            case "GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE" -> true;
            default -> false;
        };
    }

    /** Builds an {@link OutboundLimit}; checks every setting in {@link #build()}. */
    public static final class Builder {
        private final String name;
        private final Policy policy;
        private String key;
        private long cost = 1;
        private Duration maxWait = DEFAULT_MAX_WAIT;
        private Duration maxRemotePause = DEFAULT_MAX_REMOTE_PAUSE;
        private Rule.FailureMode onStoreFailure = Rule.FailureMode.ALLOW;
        private int retries;
        private Duration retryWithin = DEFAULT_RETRY_WITHIN;
        private boolean retryNonIdempotent;
        private boolean learnPolicy = true;

        Builder(String name, Policy policy) {
            this.name = name;
            this.policy = policy;
            this.key = name;
        }

        /** The remote account the fleet shares a budget for (default the limit's name). */
        public Builder key(String k) {
            this.key = k;
            return this;
        }

        /** The permits each call takes (default 1). */
        public Builder cost(long c) {
            this.cost = c;
            return this;
        }

        /** The longest a call waits for a permit or a pause's end (default 5 s; zero: fail at once). */
        public Builder maxWait(Duration d) {
            this.maxWait = d;
            return this;
        }

        /** The longest one answer of the remote can pause the key (default 10 minutes, at most a day). */
        public Builder maxRemotePause(Duration d) {
            this.maxRemotePause = d;
            return this;
        }

        /** What answers while the store cannot (default {@code ALLOW}). */
        public Builder onStoreFailure(Rule.FailureMode mode) {
            this.onStoreFailure = mode;
            return this;
        }

        /**
         * Sends a call answered 429 again once the pause ends, up to {@code count} times (at most
         * {@value #MAX_RETRIES}) and within {@code within} in all; idempotent methods only unless
         * {@link #retryNonIdempotent(boolean)}.
         */
        public Builder retries(int count, Duration within) {
            this.retries = count;
            this.retryWithin = within;
            return this;
        }

        /** Whether POST and PATCH are retried too (default false). */
        public Builder retryNonIdempotent(boolean on) {
            this.retryNonIdempotent = on;
            return this;
        }

        /** Whether a {@code RateLimit-Policy} of the remote lowers the local limit (default true). */
        public Builder learnPolicy(boolean on) {
            this.learnPolicy = on;
            return this;
        }

        /** @throws ConfigException naming the setting and its value when one is out of range */
        public OutboundLimit build() {
            return new OutboundLimit(name, policy, key, cost, maxWait, maxRemotePause, onStoreFailure, retries,
                    retryWithin, retryNonIdempotent, learnPolicy);
        }
    }
}
