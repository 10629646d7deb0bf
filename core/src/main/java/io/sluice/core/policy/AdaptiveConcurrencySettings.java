package io.sluice.core.policy;

import java.util.List;

/**
 * The settings of {@link Algorithm#ADAPTIVE_CONCURRENCY}: a concurrency limit that finds itself, between {@code min}
 * and {@code max}, starting at the policy's limit ({@code 20 concurrent adaptive min 5 max 200}), with a share of it
 * kept for requests marked critical ({@code reserve}, a percentage), and leases as {@link ConcurrencySettings}'s. The
 * algorithm is {@link io.sluice.core.algorithm.AdaptiveLimit}'s; its period is its lease.
 *
 * @param leaseTimeoutMicros a lease not released within this time expires, between 1 µs and 366 days
 * @param min the least the limit falls to, at least 1 and at most the initial limit
 * @param max the most the limit grows to, at least the initial limit; 0: ten times the initial limit
 * @param reservePercent the share of the limit, in percent (0 to 90), that only critical requests may use: the others
 *     are refused once the weight in flight reaches {@code limit * (100 - reserve) / 100}
 */
public record AdaptiveConcurrencySettings(long leaseTimeoutMicros, long min, long max, long reservePercent)
        implements Settings {

    /** Default least limit ({@value}). */
    public static final long DEFAULT_MIN = 1;
    /** Default reserve for critical requests, in percent ({@value}). */
    public static final long DEFAULT_RESERVE_PERCENT = 10;
    /** Leases of a minute, limit from 1 to ten times the initial one, 10% kept for critical requests. */
    public static final AdaptiveConcurrencySettings DEFAULT = new AdaptiveConcurrencySettings(
            ConcurrencySettings.DEFAULT_LEASE_TIMEOUT_MICROS, DEFAULT_MIN, 0, DEFAULT_RESERVE_PERCENT);

    /** The flag {@code adaptive}: names the algorithm in the notation ({@code 20 concurrent adaptive}). */
    public static final Option ADAPTIVE = new Option("adaptive", Kind.FLAG);
    /** The option {@code min N}. */
    public static final Option MIN = new Option("min", Kind.COUNT);
    /** The option {@code max N}. */
    public static final Option MAX = new Option("max", Kind.COUNT);
    /** The option {@code reserve N} (percent). */
    public static final Option RESERVE = new Option("reserve", Kind.COUNT);
    private static final List<Option> OPTIONS = List.of(ADAPTIVE, MIN, MAX, RESERVE, ConcurrencySettings.LEASE);

    /** @return the defaults with leases of {@code leaseMicros} (the period a concurrency policy is given) */
    static AdaptiveConcurrencySettings over(long leaseMicros) {
        return new AdaptiveConcurrencySettings(leaseMicros, DEFAULT_MIN, 0, DEFAULT_RESERVE_PERCENT);
    }

    @Override
    public Algorithm algorithm() {
        return Algorithm.ADAPTIVE_CONCURRENCY;
    }

    @Override
    public List<Option> options() {
        return OPTIONS;
    }

    @Override
    public Settings with(String option, long value) {
        if (option.equals(ADAPTIVE.name())) {
            return this;
        }
        if (option.equals(MIN.name())) {
            return new AdaptiveConcurrencySettings(leaseTimeoutMicros, value, max, reservePercent);
        }
        if (option.equals(MAX.name())) {
            return new AdaptiveConcurrencySettings(leaseTimeoutMicros, min, value, reservePercent);
        }
        if (option.equals(RESERVE.name())) {
            return new AdaptiveConcurrencySettings(leaseTimeoutMicros, min, max, value);
        }
        if (option.equals(ConcurrencySettings.LEASE.name())) {
            return new AdaptiveConcurrencySettings(value, min, max, reservePercent);
        }
        throw Bounds.unknown(this, option);
    }

    /** Writes {@code " adaptive"} always (it names the algorithm), then the options not at their defaults. */
    @Override
    public void format(StringBuilder out) {
        out.append(" adaptive");
        if (min != DEFAULT_MIN) {
            out.append(" min ").append(min);
        }
        if (max != 0) {
            out.append(" max ").append(max);
        }
        if (reservePercent != DEFAULT_RESERVE_PERCENT) {
            out.append(" reserve ").append(reservePercent);
        }
        if (leaseTimeoutMicros != ConcurrencySettings.DEFAULT_LEASE_TIMEOUT_MICROS) {
            out.append(" lease ").append(PolicyParser.formatDuration(leaseTimeoutMicros));
        }
    }

    /** @param limit the initial limit, which {@code min} and {@code max} must bracket */
    @Override
    public void validate(long limit, long periodMicros) {
        Bounds.check(min >= 1 && min <= limit, "min", min,
                "expected min, the least adaptive limit, between 1 and the initial limit " + limit);
        Bounds.check(max == 0 || (max >= limit && max <= Bounds.MAX_LIMIT), "max", max,
                "expected max, the most adaptive limit, between the initial limit " + limit + " and " + Bounds.MAX_LIMIT);
        Bounds.check(reservePercent >= 0 && reservePercent <= 90, "reserve", reservePercent,
                "expected reserve, the share kept for critical requests, between 0 and 90 (percent)");
        Bounds.duration("lease", leaseTimeoutMicros, 1, "a lease timeout (lease)");
    }

    /** @return the most the limit grows to for an initial {@code limit}: {@code max}, else ten times the limit */
    public long maxLimit(long limit) {
        return max != 0 ? max : Math.min(Bounds.MAX_LIMIT, limit * 10);
    }

    /** @return the lease timeout: the period of an adaptive concurrency policy */
    @Override
    public long periodMicros(long stated) {
        return leaseTimeoutMicros;
    }
}
