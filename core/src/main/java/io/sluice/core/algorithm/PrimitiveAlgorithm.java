package io.sluice.core.algorithm;

import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;

/**
 * A rate algorithm whose state fits in a {@link Slots}: its allocation-free step, over primitive longs updated in
 * place, for the stores' hot path. The algorithm's class implements it beside {@link RateAlgorithm} and
 * {@link Definition}, and documents there which slot holds which field of its {@code State} record; registering the
 * class in {@link Algorithms} is all {@link PrimitiveSteps} needs to find it. Its reference step
 * ({@link RateAlgorithm#step}) runs this step on a scratch copy ({@link PrimitiveSteps#reference}), so each formula is
 * written once.
 *
 * @param <S> the algorithm's immutable state record, equal field for field to the slots it uses
 */
interface PrimitiveAlgorithm<S> {

    /** The step over {@code slots}: see {@link PrimitiveSteps#step}. */
    Outcome step(Slots slots, boolean fresh, long nowMicros, long cost, Policy policy);

    /** The reference {@link RateAlgorithm#ttlMicros} of the state held in {@code slots}: always >= 1. */
    long ttlMicros(Slots slots, long nowMicros, Policy policy);

    /** @return the reference state record equal to {@code slots} */
    S toState(Slots slots);

    /** Writes {@code state} (not null) into {@code slots}. */
    void fromState(S state, Slots slots);
}
