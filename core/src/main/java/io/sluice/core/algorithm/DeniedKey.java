package io.sluice.core.algorithm;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;

/**
 * What a store's denial of one check tells of its key, so that the engine's denial cache can give the store's own
 * answer to the key's later requests without asking it: every field (decision, remaining, reset-after, retry-after,
 * {@linkplain Outcome#never() never}) as the store would give it, for as long as no request was admitted on the key
 * since. A denial consumes nothing, so until something is admitted the key's state is the one the store denied
 * from, seen later.
 *
 * <p>Where the denial determines that state, a later request of any cost is decided by the algorithm's own step on it,
 * and answered here only when the step denies it (a request the store would admit must reach the store):
 * <ul>
 *   <li>GCRA, and the leaky bucket as a meter: the theoretical arrival (the bucket's empty) time is the denial's time
 *       plus its reset-after;</li>
 *   <li>token bucket: the tokens are the remaining, counted up to the denial's retry time less the time those missing
 *       for its cost take to come back;</li>
 *   <li>fixed window: the count is the limit less the remaining, in the window that ends at the retry time;</li>
 *   <li>warm-up: the next free time is the retry time (a request that may not pass yet is denied whatever its cost,
 *       and the stored permits matter only to one that passes).</li>
 * </ul>
 *
 * <p>The sliding window counter and the sliding log keep more than a denial says (two counts, a log). For them the same
 * cost is answered again until the retry time (the first instant it passes, which time alone does not move), with
 * the denial's remaining: only when that cannot change before then, that is when it is one less than the cost (always
 * so for a cost of 1). A request denied for a cost {@code c} is denied while its remaining is below {@code c}, and the
 * remaining only grows as time passes; so it stays {@code c - 1}. Their reset-after is a fixed instant, or 0.
 *
 * <p>A denial that says nothing this can answer exactly gives no {@code DeniedKey}: concurrency (a release frees a slot
 * at any time), a sliding log that counts rejected attempts (each attempt changes the log), a queueing leaky bucket, a
 * cost that can never pass. Nor is anything answered for a time before the denial's (a clock that stepped back):
 * the store is asked. Immutable.
 */
public final class DeniedKey {

    private final Policy policy;
    private final long atMicros;
    private final long untilMicros;
    /** The state the step replays; null when only the same cost is answered again. */
    private final Object state;
    /** What a staggered fixed window adds to the time for this key (as a store adds it); else 0. */
    private final long offsetMicros;
    private final long cost;
    private final Outcome denial;

    private DeniedKey(Policy policy, long atMicros, Object state, long offsetMicros, long cost, Outcome denial) {
        this.policy = policy;
        this.atMicros = atMicros;
        this.untilMicros = atMicros + denial.retryAfterMicros();
        this.state = state;
        this.offsetMicros = offsetMicros;
        this.cost = cost;
        this.denial = denial;
    }

    /**
     * @param key the check's key (a staggered fixed window's offset depends on it)
     * @param cost the cost the store denied
     * @param denial the store's answer, a denial of {@code cost} under {@code policy}
     * @param atMicros the time the store decided at
     * @return what the denial tells; null when it tells too little to answer any request exactly
     */
    public static DeniedKey of(String key, Policy policy, long cost, Outcome denial, long atMicros) {
        if (denial.allowed() || denial.never() || cost <= 0) {
            return null;
        }
        long offset = FixedWindow.staggerOffsetMicros(key, policy);
        long retryAt = atMicros + denial.retryAfterMicros();
        Object state = switch (policy.algorithm()) {
            case GCRA -> new Gcra.State(atMicros + denial.resetAfterMicros());
            case LEAKY_BUCKET -> policy.queues() ? null : new LeakyBucket.State(atMicros + denial.resetAfterMicros());
            case TOKEN_BUCKET -> new TokenBucket.State(denial.remaining(),
                    retryAt - (cost - denial.remaining()) * policy.intervalMicros());
            case FIXED_WINDOW -> new FixedWindow.State(retryAt + offset - policy.periodMicros(),
                    policy.limit() - denial.remaining());
            case WARM_UP -> new WarmUp.State(0.0, retryAt);
            default -> null;
        };
        if (state != null) {
            return new DeniedKey(policy, atMicros, state, offset, cost, denial);
        }
        boolean pinned = denial.remaining() == cost - 1;
        boolean counted = policy.algorithm() == Algorithm.SLIDING_WINDOW
                || (policy.algorithm() == Algorithm.SLIDING_LOG && !policy.settings().recordsDenials());
        return pinned && counted ? new DeniedKey(policy, atMicros, null, 0, cost, denial) : null;
    }

    /** @return the policy the denial was under: it answers nothing under another */
    public Policy policy() {
        return policy;
    }

    /** @return when the cost denied passes with no other traffic: after it the denial answers nothing worth keeping */
    public long untilMicros() {
        return untilMicros;
    }

    /**
     * @return the store's answer to a request of {@code cost} at {@code nowMicros} when it is a denial, provided nothing
     *     was admitted on the key since the denial; null when the store would admit it, or when this cannot tell
     */
    public Outcome deny(long cost, long nowMicros) {
        if (nowMicros < atMicros) {
            return null;
        }
        if (state == null) {
            if (cost != this.cost || nowMicros >= untilMicros) {
                return null;
            }
            long resetAt = atMicros + denial.resetAfterMicros();
            return Outcome.deny(denial.limit(), denial.remaining(), Math.max(0, resetAt - nowMicros),
                    untilMicros - nowMicros);
        }
        Outcome o = Algorithms.rate(policy.algorithm()).step(state, nowMicros + offsetMicros, cost, policy).outcome();
        return o.allowed() ? null : o;
    }
}
