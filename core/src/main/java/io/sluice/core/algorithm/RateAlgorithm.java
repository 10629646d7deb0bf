package io.sluice.core.algorithm;

import io.sluice.core.policy.Policy;

/**
 * One rate-limiting algorithm as a pure function: {@code (state, now, cost, policy) -> (state', outcome)}.
 * No I/O, no clock, no sleeping, no shared mutable state: the store owns atomicity. Each implementation has a
 * Redis twin, {@code <name>.lua} in the same package, that agrees with it to the microsecond.
 *
 * @param <S> immutable state per key; {@code null} stands for a key never seen (or expired)
 */
public interface RateAlgorithm<S> {

    /**
     * Decides one request.
     *
     * @param state the key's state, or null for a fresh key
     * @param nowMicros the current time; it may be earlier than times seen before (a clock that goes backwards
     *     must never mint permits)
     * @param cost the request's weight, >= 0; cost 0 reports the state without consuming
     * @param policy the numbers
     * @return the state to write if the request is admitted by every rule, and the outcome
     */
    Step<S> step(S state, long nowMicros, long cost, Policy policy);

    /**
     * The state to write when the request is denied (by this rule or by another rule of the same request).
     * By default denial changes nothing; the sliding log with {@code countRejected} records the attempt.
     */
    default S onDenied(S state, long nowMicros, long cost, Policy policy) {
        return state;
    }

    /**
     * How long {@code state} stays meaningful after {@code nowMicros}: once this has passed with no traffic, the
     * state equals a fresh key's and may be dropped. Always >= 1 (a TTL of zero would never limit).
     */
    long ttlMicros(S state, long nowMicros, Policy policy);
}
