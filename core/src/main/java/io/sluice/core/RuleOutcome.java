package io.sluice.core;

import io.sluice.core.policy.Policy;
import io.sluice.core.policy.Outcome;

/**
 * One rule's part in a decision.
 *
 * @param rule the rule
 * @param policy the policy that applied (the tier's, when the rule has tiers)
 * @param outcome the numbers
 * @param source where the outcome came from: the store, or a fallback while the store failed
 * @param chargedAtCheck for a rule that {@linkplain Rule#countsByOutcome() counts by outcome}: whether the store
 *     already took its cost when the request was checked, so that {@link Engine#charge} does not take it again. That
 *     happens only when the rule had no room at its first look and room appeared before its second (its window rolled
 *     over on the store's clock, or its key was reset); the request is then counted whatever its response's status.
 *     False for every other rule.
 */
public record RuleOutcome(Rule rule, Policy policy, Outcome outcome, Source source, boolean chargedAtCheck) {

    /** An outcome not charged at check time: every rule but a count-by-outcome rule's rare recheck. */
    public RuleOutcome(Rule rule, Policy policy, Outcome outcome, Source source) {
        this(rule, policy, outcome, source, false);
    }

    /** Where an outcome came from. */
    public enum Source {
        /** The configured store answered. */
        STORE,
        /** The store failed and the rule allows meanwhile. */
        FAILURE_ALLOWED,
        /** The store failed and the rule denies meanwhile (503, not 429). */
        FAILURE_DENIED,
        /** The store failed and a local limit (this node's share) answered. */
        LOCAL_FALLBACK
    }

    /** @return whether this outcome stops the request: denied and enforced */
    public boolean denies() {
        return !outcome.allowed() && !rule.shadow();
    }
}
