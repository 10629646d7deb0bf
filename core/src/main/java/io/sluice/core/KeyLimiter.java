package io.sluice.core;

import io.sluice.core.policy.Outcome;
import io.sluice.core.store.MemoryStore;

/**
 * One named limit bound to one key: {@code engine.limiter("stripe", Policy.parse("100/1s")).key("acct-42")}, for
 * code that limits the same partition again and again (calls to one third-party API, one account's jobs). Same answers,
 * same counts and same failure mode as {@link Limiter#tryAcquire(String, long)} with that key (any number of handles,
 * and the keyed calls, share one state); on the {@link MemoryStore} the handle of a policy without a penalty also keeps
 * the key's state at hand, so a decision of GCRA, token bucket, fixed window or sliding window counter skips the lookup
 * (the other algorithms look the key up as the keyed call does). Thread-safe.
 */
public final class KeyLimiter {

    private final Limiter limiter;
    private final String key;
    private final MemoryStore.KeyHandle handle;      // null: every call is the limiter's

    KeyLimiter(Limiter limiter, String key, MemoryStore.KeyHandle handle) {
        this.limiter = limiter;
        this.key = key;
        this.handle = handle;
    }

    /**
     * @param cost the weight, >= 0 (0 peeks)
     * @return the outcome for this key; while the store cannot answer, that of the limiter's
     *     {@link Limiter#onStoreFailure() failure mode}
     * @throws IllegalArgumentException when {@code cost} is negative
     */
    public Outcome tryAcquire(long cost) {
        return handle != null ? handle.tryAcquire(cost) : limiter.tryAcquire(key, cost);
    }

    /** @return whether one permit was taken */
    public boolean tryAcquire() {
        return tryAcquire(1).allowed();
    }

    /** @return the partition this handle decides for */
    public String key() {
        return key;
    }

    /** @return the named limit this handle belongs to */
    public Limiter limiter() {
        return limiter;
    }
}
