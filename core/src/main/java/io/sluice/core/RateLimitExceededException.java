package io.sluice.core;

import io.sluice.core.policy.Outcome;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Objects;

/**
 * A programmatic denial, for callers outside HTTP: thrown by {@link Limiter#tryAcquireOrThrow(String, long)} and
 * {@link KeyLimiter#tryAcquireOrThrow(long)} when the limit denies. Unchecked, as a denial is an expected outcome that
 * the caller may let travel up to a layer that knows what to do (answer 429, reschedule a job, back off).
 *
 * <p>It carries what a caller needs to retry and to explain: the limit's name, its {@link #limit()}, what
 * {@link #remaining()} for the key, and {@link #retryAfter()}. Its message holds the limit's name and numbers only,
 * never the key (an account, an address), so it can be logged as it is. It has no stack trace (it is made on a
 * decision's path, where one would cost more than the decision) and no cause.
 */
public class RateLimitExceededException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** {@link #retryAfter()} of a request that can never pass (a cost above the capacity): {@link ChronoUnit#FOREVER}. */
    public static final Duration NEVER = ChronoUnit.FOREVER.getDuration();

    private final String limitName;
    private final long limit;
    private final long remaining;
    private final Duration retryAfter;

    /**
     * @param limitName the limit's (or rule's) name
     * @param limit the policy's limit (a bucket's capacity), as {@link Outcome#limit()}
     * @param remaining the permits left for the key, as {@link Outcome#remaining()}
     * @param retryAfter the time after which the same request would pass with no other traffic; {@link #NEVER} when
     *     it never can
     */
    public RateLimitExceededException(String limitName, long limit, long remaining, Duration retryAfter) {
        super(message(limitName, limit, remaining, retryAfter), null, false, false);
        this.limitName = limitName;
        this.limit = limit;
        this.remaining = remaining;
        this.retryAfter = retryAfter;
    }

    /**
     * @param limitName the limit's name
     * @param denied a denied outcome
     * @return the exception stating {@code denied}
     * @throws IllegalArgumentException when {@code denied} is allowed
     */
    public static RateLimitExceededException of(String limitName, Outcome denied) {
        if (denied.allowed()) {
            throw new IllegalArgumentException("an allowed outcome is no denial");
        }
        Duration retry = denied.never() ? NEVER : Duration.of(denied.retryAfterMicros(), ChronoUnit.MICROS);
        return new RateLimitExceededException(limitName, denied.limit(), denied.remaining(), retry);
    }

    private static String message(String limitName, long limit, long remaining, Duration retryAfter) {
        Objects.requireNonNull(limitName, "limitName");
        Objects.requireNonNull(retryAfter, "retryAfter");
        String when = retryAfter.equals(NEVER) ? "the cost is above what the limit ever allows, retrying cannot help"
                : "retry after " + retryAfter;
        return "rate limit \"" + limitName + "\" exceeded (limit " + limit + ", " + remaining + " remaining): " + when;
    }

    /** @return the name of the limit (the rule) that denied */
    public String limitName() {
        return limitName;
    }

    /** @return the policy's limit: permits per period, a bucket's capacity, or requests in flight */
    public long limit() {
        return limit;
    }

    /** @return the permits left for the key when it was denied (below the request's cost) */
    public long remaining() {
        return remaining;
    }

    /**
     * @return the time after which the same request would pass with no other traffic, to the microsecond (at least
     *     1 µs); {@link #NEVER} when it never can ({@link #retryable()} is then false)
     */
    public Duration retryAfter() {
        return retryAfter;
    }

    /** @return whether retrying can ever help: false for a cost above what the limit allows */
    public boolean retryable() {
        return !retryAfter.equals(NEVER);
    }
}
