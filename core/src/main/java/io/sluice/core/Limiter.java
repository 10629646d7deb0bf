package io.sluice.core;

import io.sluice.core.policy.Policy;
import io.sluice.core.policy.Outcome;
import java.util.Objects;

/**
 * One named limit of an {@link Engine}, bound to its policy: {@code engine.limiter("stripe", Policy.parse("100/1s"))}.
 * Thread-safe; holds no state of its own (the engine's store does), so any number of handles on the same name and
 * policy share the same counts as {@link Engine#tryAcquire(String, String, Policy, long)}, and decide as it does:
 * through the engine's denial cache and circuit breaker, and, while the store cannot answer, by this limiter's
 * {@link #onStoreFailure() failure mode} (allow unless {@link Engine#limiter(String, Policy, Rule.FailureMode)} names
 * another).
 */
public final class Limiter {

    private final ProgrammaticLimits limits;
    private final String name;
    private final Policy policy;
    private final Rule.FailureMode onStoreFailure;

    Limiter(ProgrammaticLimits limits, String name, Policy policy, Rule.FailureMode onStoreFailure) {
        this.limits = Objects.requireNonNull(limits);
        this.name = Objects.requireNonNull(name, "name");
        this.policy = Objects.requireNonNull(policy, "policy");
        this.onStoreFailure = Objects.requireNonNull(onStoreFailure, "onStoreFailure");
    }

    /**
     * @param key the partition
     * @param cost the weight, >= 0 (0 peeks)
     * @return the outcome for {@code key}; while the store cannot answer, that of {@link #onStoreFailure()}
     */
    public Outcome tryAcquire(String key, long cost) {
        return limits.tryAcquire(name, key, policy, cost, onStoreFailure);
    }

    /** @return whether one permit for {@code key} was taken (see {@link #tryAcquire(String, long)}) */
    public boolean tryAcquire(String key) {
        return tryAcquire(key, 1).allowed();
    }

    /**
     * @param key the partition
     * @return a handle on this limit for {@code key} alone, sharing its counts and its failure mode (see
     *     {@link KeyLimiter})
     * @throws IllegalArgumentException when {@code key} is null
     */
    public KeyLimiter key(String key) {
        if (key == null) {
            throw new IllegalArgumentException("key is required");
        }
        return limits.keyLimiter(this, key);
    }

    /** @return the limit's name (part of the stored key) */
    public String name() {
        return name;
    }

    /** @return the policy every call applies */
    public Policy policy() {
        return policy;
    }

    /**
     * @return what answers while the store cannot (unreachable, or the circuit breaker open): allow (the whole limit
     *     as remaining), deny (retry after a second), or this node's share of the limit in a local store
     */
    public Rule.FailureMode onStoreFailure() {
        return onStoreFailure;
    }
}
