package io.sluice.core;

/**
 * One rule's part in a decision.
 *
 * @param rule the rule
 * @param policy the policy that applied (the tier's, when the rule has tiers)
 * @param outcome the numbers
 * @param source where the outcome came from: the store, or a fallback while the store failed
 */
public record RuleOutcome(Rule rule, Policy policy, Outcome outcome, Source source) {

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
