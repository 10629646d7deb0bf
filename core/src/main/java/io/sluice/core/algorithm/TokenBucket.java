package io.sluice.core.algorithm;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;

/**
 * Token bucket: a bucket of capacity {@code C} (the burst, else the limit) refilled with one token every
 * {@code I = P / L} microseconds, lazily on each request: no timer thread.
 *
 * <p><b>State per key:</b> the tokens, and the time up to which refill has been counted. Refill advances that time by
 * whole intervals only, so no fraction of a token is lost between requests; a full bucket restarts it at {@code now}.
 *
 * <p><b>Rule:</b> {@code add = floor((now - last) / I)}; {@code tokens = min(C, tokens + add)}. A request of cost
 * {@code c <= C} passes when {@code tokens >= c} and takes {@code c} tokens; otherwise it may retry after
 * {@code last + (c - tokens) * I - now}. A fresh key has a full bucket.
 *
 * <p><b>Worked example:</b> {@code 5/10s burst 20}: 20 requests pass at once, the 21st is denied with retry-after 2 s;
 * from then on one request every 2 s.
 *
 * <p>A clock that goes backwards refills nothing until it passes the last refill time again.
 */
final class TokenBucket implements RateAlgorithm<TokenBucket.State>, PrimitiveAlgorithm<TokenBucket.State>,
        Definition {

    /**
     * @param tokens tokens in the bucket at {@code lastMicros}
     * @param lastMicros the time refill has been counted up to
     */
    record State(long tokens, long lastMicros) {}

    // the store's view (Definition); the Redis twin is token-bucket.lua

    @Override
    public Algorithm algorithm() {
        return Algorithm.TOKEN_BUCKET;
    }

    @Override
    public char code() {
        return 't';
    }

    @Override
    public boolean inline() {
        return true;
    }

    @Override
    public void arguments(Policy policy, Arguments out) {
        out.add(policy.capacity());
        out.add(policy.intervalMicros());
    }

    @Override
    public Step<State> step(State state, long nowMicros, long cost, Policy policy) {
        return PrimitiveSteps.reference(Algorithm.TOKEN_BUCKET, state, nowMicros, cost, policy);
    }

    private static long fullAfter(State s, long nowMicros, long capacity, long interval) {
        return fullAfter(s.tokens(), s.lastMicros(), nowMicros, capacity, interval);
    }

    static long fullAfter(long tokens, long lastMicros, long nowMicros, long capacity, long interval) {
        return tokens >= capacity ? 0 : Math.max(0, lastMicros + (capacity - tokens) * interval - nowMicros);
    }

    /**
     * The step on primitive state (the reference {@link #step} runs it on a copy): see {@link PrimitiveSteps#step}.
     * Its slots: {@code s0} = tokens, {@code s1} = lastMicros.
     */
    @Override
    public Outcome step(Slots s, boolean fresh, long nowMicros, long cost, Policy policy) {
        long capacity = policy.capacity();
        long interval = policy.intervalMicros();
        long tokens;
        long last;
        if (fresh) {
            tokens = capacity;
            last = nowMicros;
        } else if (nowMicros <= s.s1) {
            tokens = Math.min(s.s0, capacity);
            last = s.s1;
        } else {
            long add = (nowMicros - s.s1) / interval;
            if (add >= capacity - s.s0) {
                tokens = capacity;
                last = nowMicros;
            } else {
                tokens = s.s0 + add;
                last = s.s1 + add * interval;
            }
        }
        if (cost > capacity) {
            return Outcome.deny(capacity, tokens, fullAfter(tokens, last, nowMicros, capacity, interval), Outcome.NEVER);
        }
        if (tokens < cost) {
            long retry = last + (cost - tokens) * interval - nowMicros;
            return Outcome.deny(capacity, tokens, fullAfter(tokens, last, nowMicros, capacity, interval), retry);
        }
        if (cost != 0) {
            s.s0 = tokens - cost;
            s.s1 = last;
        }
        return Outcome.allow(capacity, tokens - cost, fullAfter(tokens - cost, last, nowMicros, capacity, interval));
    }

    @Override
    public long ttlMicros(State state, long nowMicros, Policy policy) {
        return state == null ? 1
                : Math.max(1, fullAfter(state, nowMicros, policy.capacity(), policy.intervalMicros()));
    }

    @Override
    public long ttlMicros(Slots s, long nowMicros, Policy policy) {
        return Math.max(1, fullAfter(s.s0, s.s1, nowMicros, policy.capacity(), policy.intervalMicros()));
    }

    @Override
    public State toState(Slots s) {
        return new State(s.s0, s.s1);
    }

    @Override
    public void fromState(State state, Slots s) {
        s.s0 = state.tokens();
        s.s1 = state.lastMicros();
    }
}
