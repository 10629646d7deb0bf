package io.sluice.core;

import io.sluice.core.policy.Policy;
import io.sluice.core.policy.Outcome;
import java.util.Objects;

/**
 * One named limit of an {@link Engine}, bound to its policy: {@code engine.limiter("stripe", Policy.parse("100/1s"))}.
 * Thread-safe; holds no state of its own (the engine's store does), so any number of handles on the same name and
 * policy share the same counts as {@link Engine#tryAcquire(String, String, Policy, long)}.
 */
public final class Limiter {

    private final Engine engine;
    private final String name;
    private final Policy policy;

    Limiter(Engine engine, String name, Policy policy) {
        this.engine = Objects.requireNonNull(engine);
        this.name = Objects.requireNonNull(name, "name");
        this.policy = Objects.requireNonNull(policy, "policy");
    }

    /**
     * @param key the partition
     * @param cost the weight, >= 0 (0 peeks)
     * @return the outcome for {@code key}
     * @throws io.sluice.core.store.StoreException when the store cannot answer
     */
    public Outcome tryAcquire(String key, long cost) {
        return engine.tryAcquire(name, key, policy, cost);
    }

    /** @return whether one permit for {@code key} was taken */
    public boolean tryAcquire(String key) {
        return engine.tryAcquire(name, key, policy, 1).allowed();
    }

    /**
     * @param key the partition
     * @return a handle on this limit for {@code key} alone, sharing its counts (see {@link KeyLimiter})
     * @throws IllegalArgumentException when {@code key} is null
     */
    public KeyLimiter key(String key) {
        if (key == null) {
            throw new IllegalArgumentException("key is required");
        }
        return engine.keyLimiter(this, key);
    }

    /** @return the limit's name (part of the stored key) */
    public String name() {
        return name;
    }

    /** @return the policy every call applies */
    public Policy policy() {
        return policy;
    }
}
