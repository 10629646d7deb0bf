package io.sluice.core.algorithm;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;

/**
 * GCRA, the generic cell rate algorithm: one number per key, the theoretical arrival time {@code TAT} of the next
 * request if traffic flowed exactly at the rate.
 *
 * <p><b>Burst:</b> with emission interval {@code I = P / L} and capacity {@code C} (the {@code burst}, else the limit),
 * {@code C} requests may pass at once from a rested key; after that, one every {@code I}. So {@code 10/1s} lets 10
 * through at once, and {@code 10/1s burst 1} spaces every request 100 ms apart.
 *
 * <p><b>Rule:</b> {@code tat = max(TAT, now)}; {@code newTat = tat + c * I}. The request passes when
 * {@code newTat - C * I <= now} and stores {@code newTat}; otherwise it may retry after {@code newTat - C * I - now}.
 * A cost above {@code C} can never pass: retry-after {@link Outcome#NEVER}. Remaining is
 * {@code floor((now + C * I - newTat) / I)}; reset-after is {@code newTat - now}.
 *
 * <p><b>Worked example:</b> {@code 5/1s burst 2} ({@code I} = 200 ms): at 0 ms two requests pass, the third is denied
 * with retry-after 200 ms; at 200 ms one passes, and so on every 200 ms.
 *
 * <p>A clock that goes backwards only makes {@code TAT - now} larger: it never mints permits.
 */
final class Gcra implements RateAlgorithm<Gcra.State>, PrimitiveAlgorithm<Gcra.State>, Definition {

    /** @param tatMicros the theoretical arrival time */
    record State(long tatMicros) {}

    // the store's view (Definition); the Redis twin is gcra.lua

    @Override
    public Algorithm algorithm() {
        return Algorithm.GCRA;
    }

    @Override
    public char code() {
        return 'g';
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

    /** One enforced check of cost 1, the most common request: the script's shortest path. */
    @Override
    public boolean fast() {
        return true;
    }

    @Override
    public Step<State> step(State state, long nowMicros, long cost, Policy policy) {
        return PrimitiveSteps.reference(Algorithm.GCRA, state, nowMicros, cost, policy);
    }

    /**
     * The step on primitive state (the reference {@link #step} runs it on a copy): see {@link PrimitiveSteps#step}.
     * Its slots: {@code s0} = tatMicros.
     */
    @Override
    public Outcome step(Slots s, boolean fresh, long nowMicros, long cost, Policy policy) {
        long interval = policy.intervalMicros();
        long capacity = policy.capacity();
        long tolerance = capacity * interval;
        long tat = fresh ? nowMicros : Math.max(s.s0, nowMicros);
        if (cost > capacity) {
            return Outcome.deny(capacity, remaining(nowMicros, tolerance, tat, interval), tat - nowMicros, Outcome.NEVER);
        }
        long newTat = tat + cost * interval;
        long allowAt = newTat - tolerance;
        if (cost == 0 || allowAt <= nowMicros) {
            if (cost != 0) {
                s.s0 = newTat;
            }
            return Outcome.allow(capacity, remaining(nowMicros, tolerance, newTat, interval), newTat - nowMicros);
        }
        return Outcome.deny(capacity, remaining(nowMicros, tolerance, tat, interval), tat - nowMicros, allowAt - nowMicros);
    }

    private static long remaining(long nowMicros, long tolerance, long tat, long interval) {
        return Math.max(0, Math.floorDiv(nowMicros + tolerance - tat, interval));
    }

    @Override
    public long ttlMicros(State state, long nowMicros, Policy policy) {
        return state == null ? 1 : ttlOf(state.tatMicros(), nowMicros);
    }

    @Override
    public long ttlMicros(Slots s, long nowMicros, Policy policy) {
        return ttlOf(s.s0, nowMicros);
    }

    @Override
    public State toState(Slots s) {
        return new State(s.s0);
    }

    @Override
    public void fromState(State state, Slots s) {
        s.s0 = state.tatMicros();
    }

    /** How long a key whose theoretical arrival time is {@code tatMicros} matters: until then, at least 1 µs. */
    static long ttlOf(long tatMicros, long nowMicros) {
        return Math.max(1, tatMicros - nowMicros);
    }
}
