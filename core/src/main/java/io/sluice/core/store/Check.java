package io.sluice.core.store;

import io.sluice.core.policy.Policy;

/**
 * One rule's part of a request, as a store sees it.
 *
 * @param rule the rule's name (part of the stored key)
 * @param key the partition key the rule counts in, already resolved (the store hashes it when long or unsafe)
 * @param policy the numbers
 * @param cost the request's weight under this rule, >= 0
 * @param shadow a shadow rule is evaluated and reported but never denies the request, and its denial does not
 *     stop the other rules from consuming
 * @param leaseId for a concurrency policy: the id of the lease to take; null otherwise
 */
public record Check(String rule, String key, Policy policy, long cost, boolean shadow, String leaseId) {

    public Check {
        requireValid(rule, key, policy, cost);
    }

    /**
     * The checks of this record's constructor, for paths that decide one check without building one.
     *
     * @throws IllegalArgumentException when {@code rule}, {@code key} or {@code policy} is null, or {@code cost < 0}
     */
    public static void requireValid(String rule, String key, Policy policy, long cost) {
        if (rule == null || key == null || policy == null) {
            throw new IllegalArgumentException("rule, key and policy are required");
        }
        requireCost(cost);
    }

    /** @throws IllegalArgumentException when {@code cost} is negative, quoting it */
    public static void requireCost(long cost) {
        if (cost < 0) {
            throw new IllegalArgumentException("cost must be >= 0, got " + cost);
        }
    }

    /** @return this check with another cost (0: peek) */
    public Check withCost(long c) {
        return new Check(rule, key, policy, c, shadow, leaseId);
    }

    /** An enforced check with no lease. */
    public static Check of(String rule, String key, Policy policy, long cost) {
        return new Check(rule, key, policy, cost, false, null);
    }
}
