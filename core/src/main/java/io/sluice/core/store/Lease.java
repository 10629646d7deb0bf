package io.sluice.core.store;

import io.sluice.core.policy.Policy;

/**
 * A concurrency lease taken by an admitted request; release it when the response completes.
 * A lease that is never released expires after the policy's lease timeout.
 *
 * @param rule the rule's name
 * @param key the partition key
 * @param policy the concurrency policy
 * @param id the lease id
 */
public record Lease(String rule, String key, Policy policy, String id) {}
