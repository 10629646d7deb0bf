package io.sluice.core.algorithm;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.FixedWindowSettings;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;

/**
 * Fixed window: one counter per window of length {@code P}, windows aligned to the epoch.
 *
 * <p><b>State per key:</b> the start of the window the counter belongs to, and the cost admitted in it.
 *
 * <p><b>Rule:</b> with {@code ws = floor(now / P) * P}, a request of cost {@code c} is admitted when
 * {@code count(ws) + c <= L}; a denied request may retry at the next window, {@code ws + P - now}. A store staggers
 * windows per key by adding {@link Algorithms#staggerOffsetMicros} to {@code now} before calling this step.
 *
 * <p><b>Worked example:</b> {@code 10/1m}. Ten requests at 12:00:50 pass, the eleventh is denied with retry-after
 * 10 s; at 12:01:00 the counter starts again, so ten more pass at once: the classic edge burst of twice the limit
 * across a boundary, which the sliding algorithms refuse.
 *
 * <p>A clock that goes backwards into an earlier window keeps counting in the newest window seen.
 */
final class FixedWindow implements RateAlgorithm<FixedWindow.State>, PrimitiveAlgorithm<FixedWindow.State>,
        Definition {

    /**
     * @param windowStartMicros the start of the counter's window
     * @param count the cost admitted in that window
     */
    record State(long windowStartMicros, long count) {}

    // the store's view (Definition); the Redis twin is fixed-window.lua

    @Override
    public Algorithm algorithm() {
        return Algorithm.FIXED_WINDOW;
    }

    @Override
    public char code() {
        return 'f';
    }

    @Override
    public boolean inline() {
        return true;
    }

    @Override
    public void arguments(Policy policy, Arguments out) {
        out.add(policy.limit());
        out.add(policy.periodMicros());
    }

    /**
     * The time a staggered fixed window adds to {@code now} for {@code key}: a stable offset in {@code [0, period)}
     * derived from the key, so that all clients do not reset at the same instant. 0 unless its settings are {@link FixedWindowSettings#staggered()}.
     */
    static long staggerOffsetMicros(String key, Policy policy) {
        if (!(policy.settings() instanceof FixedWindowSettings s) || !s.staggered()) {
            return 0;
        }
        long h = key.hashCode() * 0x9E3779B97F4A7C15L;   // spread: String.hashCode is weak in the low bits
        return Math.floorMod(h ^ (h >>> 29), policy.periodMicros());
    }

    /** The stagger offset of the check's key: see {@link #staggerOffsetMicros}. */
    @Override
    public int checkArgumentCount() {
        return 1;
    }

    @Override
    public void checkArguments(String key, String leaseId, Policy policy, Arguments out) {
        out.add(staggerOffsetMicros(key, policy));
    }

    @Override
    public Step<State> step(State state, long nowMicros, long cost, Policy policy) {
        return PrimitiveSteps.reference(Algorithm.FIXED_WINDOW, state, nowMicros, cost, policy);
    }

    /**
     * The step on primitive state (the reference {@link #step} runs it on a copy): see {@link PrimitiveSteps#step}.
     * Its slots: {@code s0} = windowStartMicros, {@code s1} = count.
     */
    @Override
    public Outcome step(Slots s, boolean fresh, long nowMicros, long cost, Policy policy) {
        long period = policy.periodMicros();
        long limit = policy.limit();
        long windowStart = Math.floorDiv(nowMicros, period) * period;
        long count = 0;
        if (!fresh && s.s0 >= windowStart) {
            windowStart = s.s0;
            count = s.s1;
        }
        long windowEnd = windowStart + period - nowMicros;
        if (cost > limit) {
            return Outcome.deny(limit, Math.max(0, limit - count), count > 0 ? windowEnd : 0, Outcome.NEVER);
        }
        if (count + cost > limit) {
            return Outcome.deny(limit, Math.max(0, limit - count), windowEnd, windowEnd);
        }
        if (cost == 0) {
            return Outcome.allow(limit, Math.max(0, limit - count), count > 0 ? windowEnd : 0);
        }
        s.s0 = windowStart;
        s.s1 = count + cost;
        return Outcome.allow(limit, limit - count - cost, windowEnd);
    }

    /** Until the window ends. */
    @Override
    public long ttlMicros(State state, long nowMicros, Policy policy) {
        return state == null ? 1 : ttlOf(state.windowStartMicros(), policy.periodMicros(), nowMicros);
    }

    @Override
    public long ttlMicros(Slots s, long nowMicros, Policy policy) {
        return ttlOf(s.s0, policy.periodMicros(), nowMicros);
    }

    @Override
    public State toState(Slots s) {
        return new State(s.s0, s.s1);
    }

    @Override
    public void fromState(State state, Slots s) {
        s.s0 = state.windowStartMicros();
        s.s1 = state.count();
    }

    /** How long the count of the window starting at {@code windowStartMicros} matters: to its end, at least 1 µs. */
    static long ttlOf(long windowStartMicros, long periodMicros, long nowMicros) {
        return Math.max(1, windowStartMicros + periodMicros - nowMicros);
    }
}
