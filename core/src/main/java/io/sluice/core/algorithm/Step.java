package io.sluice.core.algorithm;

import io.sluice.core.policy.Outcome;

/**
 * The result of one algorithm step: the outcome, and the state to store if the request is admitted by every rule.
 *
 * @param state the state after admitting the request (equal to the old state when denied or when the cost is 0)
 * @param outcome what the policy answered
 * @param <S> the algorithm's state type
 */
public record Step<S>(S state, Outcome outcome) {}
