package io.sluice.core.algorithm;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;

/**
 * Allocation-free steps of the algorithms whose class is a {@link PrimitiveAlgorithm}, over the state held as primitive
 * longs in a {@link Slots} that is updated in place; which slot holds which field of the reference state record is
 * said by each algorithm's class. Each formula is written once, in the algorithm's class; its reference step
 * ({@link RateAlgorithm#step}, over the immutable state record) runs the same code on a scratch copy
 * ({@link #reference}). The algorithms' class Javadoc stays their documentation.
 *
 * <p>This class only finds an algorithm's primitive step, by its registration in {@link Algorithms}: adding a
 * primitive algorithm changes nothing here.
 */
public final class PrimitiveSteps {

    /** The primitive algorithms by {@link Algorithm#ordinal()}, null for the others: no hashing on a request's path. */
    private static final PrimitiveAlgorithm<?>[] BY_ORDINAL = index();

    private PrimitiveSteps() {}

    private static PrimitiveAlgorithm<?>[] index() {
        Algorithm[] algorithms = Algorithm.values();
        PrimitiveAlgorithm<?>[] byOrdinal = new PrimitiveAlgorithm<?>[algorithms.length];
        for (Algorithm algorithm : algorithms) {
            if (Algorithms.definition(algorithm) instanceof PrimitiveAlgorithm<?> primitive) {
                byOrdinal[algorithm.ordinal()] = primitive;
            }
        }
        return byOrdinal;
    }

    /** @return the primitive step of {@code algorithm} */
    @SuppressWarnings("unchecked")
    private static PrimitiveAlgorithm<Object> primitive(Algorithm algorithm, String what) {
        PrimitiveAlgorithm<?> primitive = BY_ORDINAL[algorithm.ordinal()];
        if (primitive == null) {
            throw new IllegalArgumentException("no primitive " + what + " for " + algorithm);
        }
        return (PrimitiveAlgorithm<Object>) primitive;
    }

    /** @return whether {@code algorithm} has a primitive twin here */
    public static boolean supports(Algorithm algorithm) {
        return BY_ORDINAL[algorithm.ordinal()] != null;
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
        return primitive(algorithm, "step").step(slots, fresh, nowMicros, cost, policy);
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
        return primitive(algorithm, "state").ttlMicros(slots, nowMicros, policy);
    }

    /** @return the reference state record equal to {@code slots} (for {@link #reference} and tests) */
    static Object toState(Algorithm algorithm, Slots slots) {
        return primitive(algorithm, "state").toState(slots);
    }

    /** Writes the reference state record {@code state} (not null) into {@code slots}. */
    static void fromState(Algorithm algorithm, Object state, Slots slots) {
        primitive(algorithm, "state").fromState(state, slots);
    }
}
