package io.sluice.core.algorithm;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;

/**
 * Allocation-free steps of {@link Algorithm#GCRA}, {@link Algorithm#TOKEN_BUCKET}, {@link Algorithm#FIXED_WINDOW} and
 * {@link Algorithm#SLIDING_WINDOW}, over the state held as primitive longs in a {@link Slots} that is updated in place.
 * Each formula is written once, in the algorithm's class; its reference step ({@link RateAlgorithm#step}, over the
 * immutable state record) runs the same code on a scratch copy ({@link #reference}). The algorithms' class Javadoc
 * stays their documentation.
 *
 * <p>Layout of the slots, field for field of the reference state record:
 * <ul>
 *   <li>GCRA: {@code s0} = tatMicros;</li>
 *   <li>token bucket: {@code s0} = tokens, {@code s1} = lastMicros;</li>
 *   <li>fixed window: {@code s0} = windowStartMicros, {@code s1} = count;</li>
 *   <li>sliding window counter: {@code s0} = windowStartMicros, {@code s1} = current, {@code s2} = previous.</li>
 * </ul>
 */
public final class PrimitiveSteps {

    private PrimitiveSteps() {}

    /** @return whether {@code algorithm} has a primitive twin here */
    public static boolean supports(Algorithm algorithm) {
        return algorithm == Algorithm.GCRA || algorithm == Algorithm.TOKEN_BUCKET
                || algorithm == Algorithm.FIXED_WINDOW || algorithm == Algorithm.SLIDING_WINDOW;
    }

    /**
     * Decides one request alone (no other rule takes part) and, when it is admitted with a positive cost, writes the
     * new state into {@code slots}: what a store does with the reference step's {@code Step} for a single check.
     *
     * @param slots the key's state; read only when {@code fresh} is false
     * @param fresh whether the key has no state (never seen, expired, or held by another algorithm)
     * @param nowMicros the time, already staggered for a staggered fixed window
     * @return the outcome; the state was written exactly when {@code outcome.allowed() && cost > 0}
     */
    public static Outcome step(Algorithm algorithm, Slots slots, boolean fresh, long nowMicros, long cost, Policy policy) {
        return switch (algorithm) {
            case GCRA -> Gcra.step(slots, fresh, nowMicros, cost, policy);
            case TOKEN_BUCKET -> TokenBucket.step(slots, fresh, nowMicros, cost, policy);
            case FIXED_WINDOW -> FixedWindow.step(slots, fresh, nowMicros, cost, policy);
            case SLIDING_WINDOW -> SlidingWindowCounter.step(slots, fresh, nowMicros, cost, policy);
            default -> throw new IllegalArgumentException("no primitive step for " + algorithm);
        };
    }

    /**
     * The reference step ({@link RateAlgorithm#step}) of an algorithm of this class: its twin run on a scratch copy
     * of {@code state}, so each formula is written once. The new state is returned exactly when the request is
     * admitted with a positive cost; otherwise {@code state} itself.
     */
    static <S> Step<S> reference(Algorithm algorithm, S state, long nowMicros, long cost, Policy policy) {
        Slots slots = new Slots();
        if (state != null) {
            fromState(algorithm, state, slots);
        }
        Outcome outcome = step(algorithm, slots, state == null, nowMicros, cost, policy);
        @SuppressWarnings("unchecked")
        S after = outcome.allowed() && cost > 0 ? (S) toState(algorithm, slots) : state;
        return new Step<>(after, outcome);
    }

    /** The reference {@link RateAlgorithm#ttlMicros} of the state held in {@code slots}. */
    public static long ttlMicros(Algorithm algorithm, Slots slots, long nowMicros, Policy policy) {
        return switch (algorithm) {
            case GCRA -> Gcra.ttlOf(slots.s0, nowMicros);
            case TOKEN_BUCKET -> Math.max(1, TokenBucket.fullAfter(slots.s0, slots.s1, nowMicros, policy.capacity(),
                    policy.intervalMicros()));
            case FIXED_WINDOW -> FixedWindow.ttlOf(slots.s0, policy.periodMicros(), nowMicros);
            case SLIDING_WINDOW -> Math.max(1, SlidingWindowCounter.resetAfter(slots.s0, slots.s1, slots.s2, nowMicros,
                    policy.periodMicros()));
            default -> throw new IllegalArgumentException("no primitive state for " + algorithm);
        };
    }

    /** @return the reference state record equal to {@code slots} (for {@link #reference} and tests) */
    static Object toState(Algorithm algorithm, Slots slots) {
        return switch (algorithm) {
            case GCRA -> new Gcra.State(slots.s0);
            case TOKEN_BUCKET -> new TokenBucket.State(slots.s0, slots.s1);
            case FIXED_WINDOW -> new FixedWindow.State(slots.s0, slots.s1);
            case SLIDING_WINDOW -> new SlidingWindowCounter.State(slots.s0, slots.s1, slots.s2);
            default -> throw new IllegalArgumentException("no primitive state for " + algorithm);
        };
    }

    /** Writes the reference state record {@code state} (not null) into {@code slots}. */
    static void fromState(Algorithm algorithm, Object state, Slots slots) {
        switch (algorithm) {
            case GCRA -> slots.s0 = ((Gcra.State) state).tatMicros();
            case TOKEN_BUCKET -> {
                TokenBucket.State s = (TokenBucket.State) state;
                slots.s0 = s.tokens();
                slots.s1 = s.lastMicros();
            }
            case FIXED_WINDOW -> {
                FixedWindow.State s = (FixedWindow.State) state;
                slots.s0 = s.windowStartMicros();
                slots.s1 = s.count();
            }
            case SLIDING_WINDOW -> {
                SlidingWindowCounter.State s = (SlidingWindowCounter.State) state;
                slots.s0 = s.windowStartMicros();
                slots.s1 = s.current();
                slots.s2 = s.previous();
            }
            default -> throw new IllegalArgumentException("no primitive state for " + algorithm);
        }
    }
}
