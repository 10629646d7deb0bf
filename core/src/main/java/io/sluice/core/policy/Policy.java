package io.sluice.core.policy;

import io.sluice.core.config.ConfigException;
import java.time.Duration;

/**
 * How much and how fast: an algorithm with its numbers. Immutable; all durations in integer microseconds.
 *
 * <p>Build one from the limit notation with {@link #parse(String)} ({@code "100/1m"}, {@code "5/10s burst 20"},
 * {@code "10/1m min-interval 2s"}, {@code "20 concurrent"}, {@code "100/1s warm-up 30s"}) or with
 * {@link #of(Algorithm, long, Duration)} and the {@code with...} methods.
 *
 * @param algorithm which algorithm applies the numbers
 * @param limit permits per period; for {@link Algorithm#CONCURRENCY} the number of requests in flight
 * @param periodMicros the period the limit applies to (for concurrency: unused, equal to the lease timeout)
 * @param burst capacity of token bucket, leaky bucket and GCRA (requests that may pass at once);
 *     {@link #capacity()} is {@code burst} when positive, else {@code limit}
 * @param minIntervalMicros sliding log: the minimum gap between two admitted requests, 0 for none
 * @param countRejected sliding log: whether rejected attempts are recorded too (off by default)
 * @param warmupMicros warm-up: the time a cold limiter takes to reach the stable rate
 * @param coldFactor warm-up: the cold interval is {@code coldFactor} times the stable interval (default 3)
 * @param leaseTimeoutMicros concurrency: a lease not released within this time expires
 * @param maxWaitMicros queue mode: a request that would fit within this wait is delayed instead of denied; 0 = reject
 * @param delayThreshold queue mode (nginx {@code delay}): this many excess requests pass without waiting
 * @param staggered fixed window: windows are offset per key so that all clients do not reset at once
 * @param penaltyMicros a key that comes back while denied, before its retry-after, is blocked for this long on the
 *     node that saw it (0: no penalty); see {@code Engine}
 */
public record Policy(
        Algorithm algorithm,
        long limit,
        long periodMicros,
        long burst,
        long minIntervalMicros,
        boolean countRejected,
        long warmupMicros,
        int coldFactor,
        long leaseTimeoutMicros,
        long maxWaitMicros,
        long delayThreshold,
        boolean staggered,
        long penaltyMicros) {

    /** Default cold factor of warm-up, as in Guava: {@value}. */
    public static final int DEFAULT_COLD_FACTOR = 3;
    /** Default lease timeout of a concurrency policy, in microseconds ({@value}, one minute). */
    public static final long DEFAULT_LEASE_TIMEOUT_MICROS = 60_000_000L;
    /** The algorithm of a rate policy whose notation names none: {@code gcra}. */
    public static final Algorithm DEFAULT_ALGORITHM = Algorithm.GCRA;
    /** Periods are capped at 366 days so that microsecond arithmetic never overflows. */
    static final long MAX_PERIOD_MICROS = 366L * 24 * 3600 * 1_000_000;
    /** Every time span an algorithm computes stays below 2^53 µs, so Lua doubles hold it exactly. */
    public static final long MAX_EXACT_MICROS = 1L << 53;
    /**
     * The largest bucket span {@code capacity x interval} (GCRA, leaky bucket, token bucket): 2^52 µs, about 142
     * years, so that a stored time {@code now + capacity x interval} stays below 2^53 (exact in a Lua double) and
     * below 10^16 (16 digits, what the Redis script's state formats hold) until about 2112.
     */
    public static final long MAX_SPAN_MICROS = 1L << 52;
    /** The sliding log keeps one timestamp per permit: its limit is capped at {@value}. */
    public static final long MAX_SLIDING_LOG_LIMIT = 100_000;
    /** Limits are capped at one billion permits per period. */
    static final long MAX_LIMIT = 1_000_000_000L;

    /**
     * Validates the numbers, Policy's bounds here and then the algorithm's own ({@code Algorithm.validate}); a bad
     * policy fails here, never later inside a store.
     */
    public Policy(Algorithm algorithm, long limit, long periodMicros, long burst, long minIntervalMicros,
            boolean countRejected, long warmupMicros, int coldFactor, long leaseTimeoutMicros, long maxWaitMicros,
            long delayThreshold, boolean staggered, long penaltyMicros) {
        if (algorithm == null) {
            throw new ConfigException("algorithm", null, "an algorithm is required");
        }
        check(limit >= 1 && limit <= MAX_LIMIT, "limit", limit, "expected a limit between 1 and " + MAX_LIMIT);
        // before the period: a concurrency policy's period is its lease timeout, which its notation names "lease"
        check(leaseTimeoutMicros >= 1 && leaseTimeoutMicros <= MAX_PERIOD_MICROS, "lease", leaseTimeoutMicros,
                "expected a lease timeout between 1 microsecond and 366 days (in microseconds)");
        check(periodMicros >= 1 && periodMicros <= MAX_PERIOD_MICROS, "period", periodMicros,
                "expected a period between 1 microsecond and 366 days (in microseconds)");
        check(burst >= 0 && burst <= MAX_LIMIT, "burst", burst, "expected a burst between 0 and " + MAX_LIMIT);
        check(minIntervalMicros >= 0 && minIntervalMicros <= MAX_PERIOD_MICROS, "min-interval", minIntervalMicros,
                "expected a min-interval between 0 and 366 days (in microseconds)");
        check(warmupMicros >= 0 && warmupMicros <= MAX_PERIOD_MICROS, "warm-up", warmupMicros,
                "expected a warm-up period between 0 and 366 days (in microseconds)");
        check(coldFactor >= 1 && coldFactor <= 1000, "cold-factor", coldFactor, "expected a factor between 1 and 1000");
        check(maxWaitMicros >= 0 && maxWaitMicros <= MAX_PERIOD_MICROS, "max-wait", maxWaitMicros,
                "expected a max-wait between 0 and 366 days (in microseconds)");
        check(delayThreshold >= 0 && delayThreshold <= MAX_LIMIT, "delay", delayThreshold,
                "expected a delay between 0 and " + MAX_LIMIT + " requests");
        check(penaltyMicros >= 0 && penaltyMicros <= MAX_PERIOD_MICROS, "penalty", penaltyMicros,
                "expected a non-negative penalty of at most 366 days");
        long capacity = burst > 0 ? burst : limit;
        long interval = Math.max(1, periodMicros / limit);
        // capacity x interval may pass 2^63 (a billion x 366 days): compared by division, which cannot overflow
        check(capacity <= MAX_SPAN_MICROS / interval, "burst", capacity,
                "expected capacity (burst, else limit) x interval (period / limit) = " + capacity + " x " + interval
                        + " microseconds to be at most 2^52 microseconds (about 142 years)");
        this.algorithm = algorithm;
        this.limit = limit;
        this.periodMicros = periodMicros;
        this.burst = burst;
        this.minIntervalMicros = minIntervalMicros;
        this.countRejected = countRejected;
        this.warmupMicros = warmupMicros;
        this.coldFactor = coldFactor;
        this.leaseTimeoutMicros = leaseTimeoutMicros;
        this.maxWaitMicros = maxWaitMicros;
        this.delayThreshold = delayThreshold;
        this.staggered = staggered;
        this.penaltyMicros = penaltyMicros;
        algorithm.validate(this);       // every field is set: the algorithm reads the policy as its users will
    }

    /**
     * A rate policy: {@code limit} permits per {@code period}, all other numbers at their defaults (a warm-up policy's
     * warm-up period is {@code period}). For {@link Algorithm#CONCURRENCY} use {@link #concurrent(long)}.
     */
    public static Policy of(Algorithm algorithm, long limit, Duration period) {
        return new Policy(algorithm, limit, micros("period", period), 0, 0, false,
                algorithm == Algorithm.WARM_UP ? micros("period", period) : 0, DEFAULT_COLD_FACTOR,
                DEFAULT_LEASE_TIMEOUT_MICROS, 0, 0, false, 0);
    }

    /** At most {@code maxInFlight} requests in flight per key; leases expire after {@value #DEFAULT_LEASE_TIMEOUT_MICROS} µs. */
    public static Policy concurrent(long maxInFlight) {
        return new Policy(Algorithm.CONCURRENCY, maxInFlight, DEFAULT_LEASE_TIMEOUT_MICROS, 0, 0, false, 0,
                DEFAULT_COLD_FACTOR, DEFAULT_LEASE_TIMEOUT_MICROS, 0, 0, false, 0);
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

    /** @return the capacity of a bucket: {@code burst} when set, else {@code limit} */
    public long capacity() {
        return burst > 0 ? burst : limit;
    }

    /** @return the emission interval {@code period / limit} in microseconds, at least 1 */
    public long intervalMicros() {
        return Math.max(1, periodMicros / limit);
    }

    /** @return whether requests that do not fit now may be delayed up to {@link #maxWaitMicros()} */
    public boolean queues() {
        return maxWaitMicros > 0;
    }

    public Policy withAlgorithm(Algorithm a) {
        return new Policy(a, limit, periodMicros, burst, minIntervalMicros, countRejected,
                a == Algorithm.WARM_UP && warmupMicros == 0 ? periodMicros : warmupMicros, coldFactor,
                leaseTimeoutMicros, maxWaitMicros, delayThreshold, staggered, penaltyMicros);
    }

    public Policy withBurst(long b) {
        return new Policy(algorithm, limit, periodMicros, b, minIntervalMicros, countRejected, warmupMicros,
                coldFactor, leaseTimeoutMicros, maxWaitMicros, delayThreshold, staggered, penaltyMicros);
    }

    public Policy withMinInterval(Duration d) {
        return new Policy(algorithm, limit, periodMicros, burst, micros("min-interval", d), countRejected,
                warmupMicros, coldFactor, leaseTimeoutMicros, maxWaitMicros, delayThreshold, staggered, penaltyMicros);
    }

    public Policy withCountRejected(boolean c) {
        return new Policy(algorithm, limit, periodMicros, burst, minIntervalMicros, c, warmupMicros, coldFactor,
                leaseTimeoutMicros, maxWaitMicros, delayThreshold, staggered, penaltyMicros);
    }

    public Policy withWarmup(Duration d) {
        return new Policy(algorithm, limit, periodMicros, burst, minIntervalMicros, countRejected,
                micros("warm-up", d), coldFactor, leaseTimeoutMicros, maxWaitMicros, delayThreshold, staggered, penaltyMicros);
    }

    public Policy withColdFactor(int f) {
        return new Policy(algorithm, limit, periodMicros, burst, minIntervalMicros, countRejected, warmupMicros, f,
                leaseTimeoutMicros, maxWaitMicros, delayThreshold, staggered, penaltyMicros);
    }

    public Policy withLeaseTimeout(Duration d) {
        long micros = micros("lease", d);
        return new Policy(algorithm, limit, algorithm == Algorithm.CONCURRENCY ? micros : periodMicros, burst,
                minIntervalMicros, countRejected, warmupMicros, coldFactor, micros, maxWaitMicros, delayThreshold,
                staggered, penaltyMicros);
    }

    public Policy withMaxWait(Duration d) {
        return new Policy(algorithm, limit, periodMicros, burst, minIntervalMicros, countRejected, warmupMicros,
                coldFactor, leaseTimeoutMicros, micros("max-wait", d), delayThreshold, staggered, penaltyMicros);
    }

    public Policy withDelayThreshold(long d) {
        return new Policy(algorithm, limit, periodMicros, burst, minIntervalMicros, countRejected, warmupMicros,
                coldFactor, leaseTimeoutMicros, maxWaitMicros, d, staggered, penaltyMicros);
    }

    public Policy withPenalty(Duration d) {
        return new Policy(algorithm, limit, periodMicros, burst, minIntervalMicros, countRejected, warmupMicros,
                coldFactor, leaseTimeoutMicros, maxWaitMicros, delayThreshold, staggered, micros("penalty", d));
    }

    public Policy withStaggered(boolean s) {
        return new Policy(algorithm, limit, periodMicros, burst, minIntervalMicros, countRejected, warmupMicros,
                coldFactor, leaseTimeoutMicros, maxWaitMicros, delayThreshold, s, penaltyMicros);
    }

    /** @return the policy in the limit notation, for logs and error messages */
    @Override
    public String toString() {
        return PolicyParser.format(this);
    }

    private static long micros(String parameter, Duration d) {
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

    private static void check(boolean ok, String parameter, long value, String expectation) {
        if (!ok) {
            throw new ConfigException(parameter, Long.toString(value), expectation);
        }
    }
}
