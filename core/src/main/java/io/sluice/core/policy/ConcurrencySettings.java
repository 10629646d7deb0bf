package io.sluice.core.policy;

import java.util.List;

/**
 * The settings of {@link Algorithm#CONCURRENCY}: how long a lease lasts. A concurrency policy's period is its lease.
 *
 * @param leaseTimeoutMicros a lease not released within this time expires, between 1 µs and 366 days
 */
public record ConcurrencySettings(long leaseTimeoutMicros) implements Settings {

    /** Default lease timeout, in microseconds ({@value}, one minute). */
    public static final long DEFAULT_LEASE_TIMEOUT_MICROS = 60_000_000L;
    /** Leases of a minute. */
    public static final ConcurrencySettings DEFAULT = new ConcurrencySettings(DEFAULT_LEASE_TIMEOUT_MICROS);

    /** The option {@code lease DURATION}. */
    public static final Option LEASE = new Option("lease", Kind.DURATION);
    private static final List<Option> OPTIONS = List.of(LEASE);

    @Override
    public Algorithm algorithm() {
        return Algorithm.CONCURRENCY;
    }

    @Override
    public List<Option> options() {
        return OPTIONS;
    }

    @Override
    public Settings with(String option, long value) {
        if (option.equals(LEASE.name())) {
            return new ConcurrencySettings(value);
        }
        throw Bounds.unknown(this, option);
    }

    @Override
    public void format(StringBuilder out) {
        if (leaseTimeoutMicros != DEFAULT_LEASE_TIMEOUT_MICROS) {
            out.append(" lease ").append(PolicyParser.formatDuration(leaseTimeoutMicros));
        }
    }

    @Override
    public void validate(long limit, long periodMicros) {
        Bounds.duration("lease", leaseTimeoutMicros, 1, "a lease timeout");
    }

    /** @return the lease timeout: the period of a concurrency policy */
    @Override
    public long periodMicros(long stated) {
        return leaseTimeoutMicros;
    }
}
