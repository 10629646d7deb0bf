package io.sluice.core.policy;

import io.sluice.core.config.ConfigException;
import java.time.Duration;
import java.util.Objects;

/**
 * How much and how fast: {@code limit} permits per {@code period}, by an algorithm with its own {@link Settings}.
 * Immutable; all durations in integer microseconds.
 *
 * <p>Build one from the limit notation with {@link #parse(String)} ({@code "100/1m"}, {@code "5/10s burst 20"},
 * {@code "10/1m min-interval 2s"}, {@code "20 concurrent"}, {@code "100/1s warm-up 30s"}), or with
 * {@link #of(Algorithm, long, Duration)} and {@link #withSettings}: {@code Policy.of(Algorithm.GCRA, 5,
 * Duration.ofSeconds(10)).withSettings(new GcraSettings(20))}.
 *
 *
 * <p>A value: two policies of equal numbers and settings are equal. It is a class rather than a record so that what
 * every decision reads (the algorithm, the capacity, the interval) is computed once, here.
 */
public final class Policy {

    /** The algorithm of a rate policy whose notation names none: {@code gcra}. */
    public static final Algorithm DEFAULT_ALGORITHM = Algorithm.GCRA;
    /** Every time span an algorithm computes stays below 2^53 µs, so Lua doubles hold it exactly. */
    public static final long MAX_EXACT_MICROS = 1L << 53;
    /**
     * The largest bucket span {@code capacity x interval} (GCRA, leaky bucket, token bucket): 2^52 µs, about 142
     * years, so that a stored time {@code now + capacity x interval} stays below 2^53 (exact in a Lua double) and
     * below 10^16 (16 digits, what the Redis script's state formats hold) until about 2112.
     */
    public static final long MAX_SPAN_MICROS = 1L << 52;

    private final long limit;
    private final long periodMicros;
    private final Settings settings;
    private final long penaltyMicros;
    private final long leasedMicros;
    private final Algorithm algorithm;
    private final long capacity;
    private final long intervalMicros;
    /** Policies are map keys on every request's path (encoded arguments, denials): hashed once. */
    private final int hash;

    /**
     * Validates the numbers: the limit, then the algorithm's own settings ({@link Settings#validate}), then the period
     * and the penalty; a bad policy fails here, never later inside a store.
     *
     * @param limit permits per period; for {@link Algorithm#CONCURRENCY} the number of requests in flight
     * @param periodMicros the period the limit applies to (for concurrency: its lease timeout, whatever is given)
     * @param settings the algorithm and the settings it owns
     * @param penaltyMicros a key that comes back while denied, before its retry-after, is blocked for this long on the
     *     node that saw it, and on every node of a shared store (0: no penalty); see {@code Engine}
     */
    public Policy(long limit, long periodMicros, Settings settings, long penaltyMicros) {
        this(limit, periodMicros, settings, penaltyMicros, 0);
    }

    /**
     * A policy whose permits nodes may lease in blocks: see {@link #leasedMicros()}.
     *
     * @param leasedMicros how long a node may hold a block of permits it took from a shared store before spending
     *     them (0: no leasing); only {@link Algorithm#leases() algorithms that lease}
     */
    public Policy(long limit, long periodMicros, Settings settings, long penaltyMicros, long leasedMicros) {
        if (settings == null) {
            throw new ConfigException("algorithm", null, "an algorithm and its settings are required");
        }
        Bounds.check(limit >= 1 && limit <= Bounds.MAX_LIMIT, "limit", limit,
                "expected a limit between 1 and " + Bounds.MAX_LIMIT);
        long period = settings.periodMicros(periodMicros);
        // before the period: a concurrency policy's period is its lease timeout, which its notation names "lease"
        settings.validate(limit, period);
        Bounds.duration("period", period, 1, "a period");
        Bounds.duration("penalty", penaltyMicros, 0, "a penalty");
        this.limit = limit;
        this.periodMicros = period;
        this.settings = settings;
        this.penaltyMicros = penaltyMicros;
        this.leasedMicros = leasedMicros;
        this.algorithm = settings.algorithm();
        this.intervalMicros = intervalMicros(limit, period);
        this.capacity = settings.capacity(limit)
                - Leasing.reserve(algorithm, leasedMicros, intervalMicros, settings.capacity(limit));
        this.hash = Objects.hash(limit, period, settings, penaltyMicros, leasedMicros);
    }

    /** @return permits per period; for {@link Algorithm#CONCURRENCY} the number of requests in flight */
    public long limit() {
        return limit;
    }

    /** @return the period the limit applies to, in microseconds (for concurrency: its lease timeout) */
    public long periodMicros() {
        return periodMicros;
    }

    /** @return the algorithm and the settings it owns */
    public Settings settings() {
        return settings;
    }

    /**
     * @return how long a key that comes back while denied is blocked, on the node that saw it and on every node of a
     *     shared store ({@link io.sluice.core.store.FleetChannel}); 0 for no penalty
     */
    public long penaltyMicros() {
        return penaltyMicros;
    }

    /**
     * How long a node may hold permits it leased before it spends them: a node that shares its store with others (Redis)
     * takes blocks of permits in one call, debited there first, spends them locally, and lets what it has not spent
     * lapse after this time (a fixed window's block also at its window's end). 0 for no leasing, the default.
     *
     * <p>So that a block spent late never lets the fleet pass more than the policy in any window, GCRA and the token
     * bucket keep the lease time's worth of permits in reserve: their {@link #capacity()} is the burst less
     * {@code ceil(leased / interval)} ({@code 1000/1s leased 100ms}: 900 at once, then 1000 a second). A fixed window
     * needs no reserve. The client's {@code remaining} is approximate by at most a block.
     */
    public long leasedMicros() {
        return leasedMicros;
    }

    /**
     * A rate policy: {@code limit} permits per {@code period}, the algorithm's settings at their defaults (a warm-up
     * policy warms up over {@code period}; a concurrency policy's leases last {@code period}).
     */
    public static Policy of(Algorithm algorithm, long limit, Duration period) {
        long micros = micros("period", period);
        return new Policy(limit, micros, algorithm.defaults(micros), 0);
    }

    /** At most {@code maxInFlight} requests in flight per key; leases expire after a minute. */
    public static Policy concurrent(long maxInFlight) {
        return new Policy(maxInFlight, ConcurrencySettings.DEFAULT_LEASE_TIMEOUT_MICROS, ConcurrencySettings.DEFAULT, 0);
    }

    /**
     * Parses the limit notation, for example {@code "100/1m"}, {@code "10/s"}, {@code "5/10s burst 20"},
     * {@code "10/1m min-interval 2s"}, {@code "20 concurrent"}, {@code "100/1s warm-up 30s"}.
     *
     * @throws ConfigException quoting the input and showing a valid example
     */
    public static Policy parse(String notation) {
        return PolicyParser.parse("limit", notation, null);
    }

    /** @return the algorithm that applies the numbers: its settings' */
    public Algorithm algorithm() {
        return algorithm;
    }

    /**
     * @param type the settings type of this policy's algorithm, such as {@code LeakyBucketSettings.class}
     * @return this policy's settings as that type
     * @throws IllegalStateException when the policy is another algorithm's
     */
    public <S extends Settings> S settings(Class<S> type) {
        if (!type.isInstance(settings)) {
            throw new IllegalStateException(this + " has no " + type.getSimpleName());
        }
        return type.cast(settings);
    }

    /**
     * @return the requests that may pass at once and the limit a client is told: a bucket's burst (less the reserve of
     *     leased permits, see {@link #leasedMicros()}), else the limit
     */
    public long capacity() {
        return capacity;
    }

    /** @return the emission interval {@code period / limit} in microseconds, at least 1 */
    public long intervalMicros() {
        return intervalMicros;
    }

    /** @return the emission interval of {@code limit} per {@code periodMicros}, at least 1 µs */
    static long intervalMicros(long limit, long periodMicros) {
        return Math.max(1, periodMicros / limit);
    }

    /** @return whether requests that do not fit now may be delayed up to {@link #maxWaitMicros()} */
    public boolean queues() {
        return settings.maxWaitMicros() > 0;
    }

    /** @return the longest a request may be delayed instead of denied, 0 when the policy never delays */
    public long maxWaitMicros() {
        return settings.maxWaitMicros();
    }

    /**
     * @return the same rate under another algorithm, its settings at their defaults but for a burst, kept from one
     *     bucket to another; the penalty and leasing kept (an algorithm that cannot lease refuses leasing). The same policy when it is {@code a}'s already.
     */
    public Policy withAlgorithm(Algorithm a) {
        if (a == algorithm()) {
            return this;
        }
        Settings s = a.defaults(periodMicros);
        if (settings instanceof BucketSettings from && s instanceof BucketSettings to) {
            s = to.withBurst(from.burst());
        }
        return new Policy(limit, periodMicros, s, penaltyMicros, leasedMicros);
    }

    /** @return the same rate with other settings, which name the algorithm; the penalty and leasing kept */
    public Policy withSettings(Settings s) {
        return new Policy(limit, periodMicros, s, penaltyMicros, leasedMicros);
    }

    /** @return this policy with a penalty: see {@link #penaltyMicros()} */
    public Policy withPenalty(Duration d) {
        return new Policy(limit, periodMicros, settings, micros("penalty", d), leasedMicros);
    }

    /**
     * @return this policy with leased permits: see {@link #leasedMicros()}; {@link Duration#ZERO} for none
     * @throws ConfigException when the algorithm cannot lease, or the lease outlasts a GCRA or token bucket's burst
     */
    public Policy withLeased(Duration d) {
        return new Policy(limit, periodMicros, settings, penaltyMicros, micros("leased", d));
    }

    /**
     * @param nodes how many nodes share the policy
     * @return one node's share: the limit divided among the nodes (at least 1), and the algorithm's settings with it
     *     (a burst divided too), without leasing (a share is this node's alone)
     */
    public Policy share(long nodes) {
        long share = Math.max(1, limit / nodes);
        return new Policy(share, periodMicros, settings.share(nodes, intervalMicros(share, periodMicros)), penaltyMicros,
                0);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Policy p && p.limit == limit && p.periodMicros == periodMicros
                && p.penaltyMicros == penaltyMicros && p.leasedMicros == leasedMicros && p.settings.equals(settings);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    /** @return the policy in the limit notation, for logs and error messages */
    @Override
    public String toString() {
        return PolicyParser.format(this);
    }

    /** @return {@code d} in microseconds, for option {@code parameter} */
    static long micros(String parameter, Duration d) {
        if (d == null || d.isNegative()) {
            throw new ConfigException(parameter, String.valueOf(d), "expected a non-negative duration");
        }
        try {
            long seconds = d.getSeconds();
            return Math.addExact(Math.multiplyExact(seconds, 1_000_000L), d.getNano() / 1_000);
        } catch (ArithmeticException e) {
            throw new ConfigException(parameter, d.toString(), "expected a duration of at most 366 days");
        }
    }
}
