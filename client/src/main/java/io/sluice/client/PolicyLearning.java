package io.sluice.client;

import io.sluice.core.policy.Policy;
import java.math.BigInteger;
import java.time.Duration;
import java.time.temporal.ChronoUnit;

/**
 * The limit in force for a quota the remote publishes ({@code RateLimit-Policy: "name";q=100;w=60}): the configured
 * policy while the remote's rate is the same or higher, else a policy of the remote's rate that is never above the
 * configured one in rate nor in burst (over the configured period when the remote's window is longer, so that a
 * remote's hourly quota does not let an hour's permits out at once). The last quota seen is remembered, as a remote
 * states the same one on every answer. Thread-safe.
 */
final class PolicyLearning {

    private static final BigInteger MICROS_PER_SECOND = BigInteger.valueOf(1_000_000);

    private final Policy configured;
    private volatile Learned last;

    private record Learned(long quota, long windowSeconds, Policy inForce) {}

    PolicyLearning(Policy configured) {
        this.configured = configured;
    }

    /**
     * @param quota the remote's permits, >= 1
     * @param windowSeconds over this many seconds, >= 1
     * @return the policy to put in force
     */
    Policy inForce(long quota, long windowSeconds) {
        Learned l = last;
        if (l != null && l.quota() == quota && l.windowSeconds() == windowSeconds) {
            return l.inForce();
        }
        Policy p = withinBurst(lowered(quota, Math.min(windowSeconds, Policy.MAX_SPAN_MICROS / 1_000_000)));
        last = new Learned(quota, windowSeconds, p);
        return p;
    }

    private Policy lowered(long quota, long windowSeconds) {
        long period = configured.periodMicros();
        BigInteger remote = BigInteger.valueOf(quota).multiply(BigInteger.valueOf(period));
        BigInteger local = BigInteger.valueOf(configured.limit()).multiply(BigInteger.valueOf(windowSeconds))
                .multiply(MICROS_PER_SECOND);
        if (remote.compareTo(local) >= 0) {
            return configured;                      // the remote allows as much or more: never raised
        }
        long windowMicros = windowSeconds * 1_000_000;
        if (windowMicros <= period && quota <= configured.capacity()) {
            return Policy.of(configured.algorithm(), quota, Duration.of(windowMicros, ChronoUnit.MICROS));
        }
        // over the configured period: quota * period / window, below the configured limit (the test above)
        long scaled = remote.divide(BigInteger.valueOf(windowMicros)).longValue();
        if (scaled >= 1) {
            return Policy.of(configured.algorithm(), scaled, Duration.of(period, ChronoUnit.MICROS));
        }
        return Policy.of(configured.algorithm(), 1, Duration.of(-Math.floorDiv(-windowMicros, quota),
                ChronoUnit.MICROS));                // fewer than one per period: one every window / quota
    }

    /** @return {@code p}, or the same rate with the configured capacity when {@code p} would let more out at once */
    private Policy withinBurst(Policy p) {
        long capacity = configured.capacity();
        if (p == configured || p.capacity() <= capacity) {
            return p;
        }
        long period = BigInteger.valueOf(p.periodMicros()).multiply(BigInteger.valueOf(capacity))
                .add(BigInteger.valueOf(p.limit() - 1)).divide(BigInteger.valueOf(p.limit())).longValue();
        return Policy.of(configured.algorithm(), capacity, Duration.of(period, ChronoUnit.MICROS));
    }
}
