package io.sluice.core.algorithm;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;

/**
 * Sliding window counter: the fixed window's counter plus the previous window's, weighted by how much of the
 * previous window the sliding window still covers.
 *
 * <p><b>State per key:</b> the start {@code ws} of the current window, its count, and the previous window's count.
 *
 * <p><b>Rule:</b> {@code e = now - ws} into the window; the previous window counts for
 * {@code weighted = floor(previous * (P - e) / P)} (computed in IEEE doubles, in exactly this order, so the Lua twin
 * agrees bit for bit; exact whenever {@code previous * P < 2^53}). A request of cost {@code c} is admitted when
 * {@code weighted + current + c <= L}, which is the same as the estimate {@code previous * (P - e) / P + current}
 * plus {@code c} staying below {@code L + 1}.
 *
 * <p><b>Worked example:</b> limit 7 per minute; the previous minute admitted 5, the current one 3, and it is 30% into
 * the current minute: the estimate is {@code 3 + 5 x 0.7 = 6.5} (floor: {@code 3 + 3 = 6}), below 7, so one more
 * request is allowed; the next one at the same instant is denied.
 *
 * <p><b>Retry-after</b> is exact: the first microsecond at which the same request passes with no other traffic, found
 * from the closed form and corrected by at most a few steps of the same predicate the decision uses.
 *
 * <p><b>Reset-after</b> is when both counts stop counting: the end of the next window when the current one has cost,
 * else the end of this one. It bounds the time until the key is back to full; the estimate may be full (remaining
 * {@code L}) up to one period sooner: after one request at 0 s of {@code 10/1m}, remaining is 10 again from 60 s and
 * 1 µs, while reset-after says 120 s.
 */
final class SlidingWindowCounter implements RateAlgorithm<SlidingWindowCounter.State>,
        PrimitiveAlgorithm<SlidingWindowCounter.State>, Definition {

    /**
     * @param windowStartMicros start of the current window
     * @param current cost admitted in the current window
     * @param previous cost admitted in the window before it
     */
    record State(long windowStartMicros, long current, long previous) {}

    // the store's view (Definition); the Redis twin is sliding-window.lua

    @Override
    public Algorithm algorithm() {
        return Algorithm.SLIDING_WINDOW;
    }

    @Override
    public char code() {
        return 's';
    }

    @Override
    public boolean inline() {
        return false;
    }

    @Override
    public void arguments(Policy policy, Arguments out) {
        out.add(policy.limit());
        out.add(policy.periodMicros());
    }

    @Override
    public Step<State> step(State state, long nowMicros, long cost, Policy policy) {
        return PrimitiveSteps.reference(Algorithm.SLIDING_WINDOW, state, nowMicros, cost, policy);
    }

    /** {@code floor(previous * (period - elapsed) / period)} in doubles, in the order the Lua twin uses. */
    static long weighted(long previous, long elapsed, long period) {
        if (previous == 0) {
            return 0;
        }
        return (long) Math.floor((double) previous * (double) (period - elapsed) / (double) period);
    }

    /**
     * The first elapsed time (from the current window's start, possibly in the next window) at which a request of
     * {@code cost <= limit} passes with no other traffic.
     */
    private static long retryAt(long current, long previous, long elapsed, long cost, long limit, long period) {
        long room = limit - current - cost;
        if (room >= 0) {
            return firstFit(previous, room, elapsed, period);
        }
        return period + firstFit(current, limit - cost, 0, period);   // next window: current becomes previous
    }

    /** Smallest {@code e >= from} with {@code weighted(previous, e, period) <= room}; at most {@code period}. */
    private static long firstFit(long previous, long room, long from, long period) {
        if (weighted(previous, from, period) <= room) {
            return from;
        }
        // exact: weighted <= room  <=>  previous * (P - e) < (room + 1) * P  <=>  e > P - (room + 1) * P / previous
        long guess = period - (long) Math.floor((double) (room + 1) * (double) period / (double) previous) + 1;
        long e = Math.min(period, Math.max(from + 1, guess));
        while (e < period && weighted(previous, e, period) > room) {
            e++;
        }
        while (e - 1 > from && weighted(previous, e - 1, period) <= room) {
            e--;
        }
        return e;
    }

    /** Until both counters stop counting: the end of the next window when the current one has cost, else this one's. */
    private static long resetAfter(State s, long nowMicros, long period) {
        return resetAfter(s.windowStartMicros(), s.current(), s.previous(), nowMicros, period);
    }

    static long resetAfter(long windowStart, long current, long previous, long nowMicros, long period) {
        if (current > 0) {
            return Math.max(0, windowStart + 2 * period - nowMicros);
        }
        if (previous > 0) {
            return Math.max(0, windowStart + period - nowMicros);
        }
        return 0;
    }

    /**
     * The step on primitive state (the reference {@link #step} runs it on a copy): see {@link PrimitiveSteps#step}.
     * Its slots: {@code s0} = windowStartMicros, {@code s1} = current, {@code s2} = previous.
     */
    @Override
    public Outcome step(Slots s, boolean fresh, long nowMicros, long cost, Policy policy) {
        long period = policy.periodMicros();
        long limit = policy.limit();
        // roll: the state seen from now
        long windowStart = Math.floorDiv(nowMicros, period) * period;
        long current;
        long previous;
        if (fresh || s.s0 < windowStart - period) {
            current = 0;
            previous = 0;
        } else if (s.s0 == windowStart - period) {
            current = 0;
            previous = s.s1;
        } else {
            windowStart = s.s0;     // same window, or a later one (clock went backwards)
            current = s.s1;
            previous = s.s2;
        }
        long now = Math.max(nowMicros, windowStart);
        long elapsed = now - windowStart;
        long used = weighted(previous, elapsed, period) + current;
        long reset = resetAfter(windowStart, current, previous, nowMicros, period);
        if (cost > limit) {
            return Outcome.deny(limit, Math.max(0, limit - used), reset, Outcome.NEVER);
        }
        if (used + cost > limit) {
            long retry = retryAt(current, previous, elapsed, cost, limit, period) - (nowMicros - windowStart);
            return Outcome.deny(limit, Math.max(0, limit - used), reset, retry);
        }
        if (cost == 0) {
            return Outcome.allow(limit, limit - used, reset);
        }
        s.s0 = windowStart;
        s.s1 = current + cost;
        s.s2 = previous;
        return Outcome.allow(limit, limit - used - cost, resetAfter(windowStart, current + cost, previous, nowMicros,
                period));
    }

    @Override
    public long ttlMicros(State state, long nowMicros, Policy policy) {
        return state == null ? 1 : Math.max(1, resetAfter(state, nowMicros, policy.periodMicros()));
    }

    @Override
    public long ttlMicros(Slots s, long nowMicros, Policy policy) {
        return Math.max(1, resetAfter(s.s0, s.s1, s.s2, nowMicros, policy.periodMicros()));
    }

    @Override
    public State toState(Slots s) {
        return new State(s.s0, s.s1, s.s2);
    }

    @Override
    public void fromState(State state, Slots s) {
        s.s0 = state.windowStartMicros();
        s.s1 = state.current();
        s.s2 = state.previous();
    }
}
