package io.sluice.core.policy;

/**
 * What one policy answered for one key: the numbers a response header needs.
 *
 * @param allowed whether the request may proceed (after {@code delayMicros} when queued)
 * @param limit the policy's limit (permits per period, or requests in flight); for GCRA, the token bucket and the
 *     leaky bucket their capacity ({@code burst}, else the limit)
 * @param remaining permits left after this request, never negative
 * @param resetAfterMicros time until the key's state is back to full capacity (0 when it already is); for the
 *     sliding window counter, until both of its counts stop counting (the estimate may be full sooner), for warm-up
 *     until the next request may pass, for concurrency always 0
 * @param retryAfterMicros when denied: time after which the same request would be allowed with no other traffic;
 *     {@link #NEVER} when it can never be allowed (cost above capacity); 0 when allowed
 * @param delayMicros queue mode: how long an allowed request must wait before it proceeds; 0 otherwise
 */
public record Outcome(
        boolean allowed, long limit, long remaining, long resetAfterMicros, long retryAfterMicros, long delayMicros) {

    /** Retry-after of a request that can never be allowed, such as a cost above the capacity. */
    public static final long NEVER = Long.MAX_VALUE;

    /** Checks the invariants every algorithm and store must keep. */
    public Outcome {
        if (remaining < 0 || resetAfterMicros < 0 || retryAfterMicros < 0 || delayMicros < 0) {
            throw new IllegalArgumentException("negative numbers in " + allowed + "/" + limit + "/" + remaining + "/"
                    + resetAfterMicros + "/" + retryAfterMicros + "/" + delayMicros);
        }
        if (allowed == (retryAfterMicros > 0)) {
            throw new IllegalArgumentException("retry-after must be positive exactly when denied, got allowed="
                    + allowed + " retryAfterMicros=" + retryAfterMicros);
        }
    }

    /** An allowed outcome with no delay. */
    public static Outcome allow(long limit, long remaining, long resetAfterMicros) {
        return new Outcome(true, limit, remaining, resetAfterMicros, 0, 0);
    }

    /** A denied outcome; {@code retryAfterMicros} is at least 1. */
    public static Outcome deny(long limit, long remaining, long resetAfterMicros, long retryAfterMicros) {
        return new Outcome(false, limit, remaining, resetAfterMicros, Math.max(1, retryAfterMicros), 0);
    }

    /** @return whether this request can never be allowed under its policy */
    public boolean never() {
        return retryAfterMicros == NEVER;
    }
}
