package io.sluice.core;

import io.sluice.core.policy.Outcome;
import io.sluice.core.store.MemoryStore;
import java.time.Duration;

/**
 * One named limit bound to one key: {@code engine.limiter("stripe", Policy.parse("100/1s")).key("acct-42")}, for
 * code that limits the same partition again and again (calls to one third-party API, one account's jobs). Same answers,
 * same counts and same failure mode as {@link Limiter#tryAcquire(String, long)} with that key (any number of handles,
 * and the keyed calls, share one state); on the {@link MemoryStore} the handle of a policy without a penalty also keeps
 * the key's state at hand, so a decision of GCRA, token bucket, fixed window or sliding window counter skips the lookup
 * (the other algorithms look the key up as the keyed call does). Thread-safe.
 *
 * <p>{@link #acquire(long)} and {@link #tryAcquire(long, Duration)} wait for permits as the limiter's
 * {@link Limiter#acquire(String, long)} and {@link Limiter#tryAcquire(String, long, Duration)} do, in the same line: the
 * callers of every handle on this limit name and key, and of the limiter with this key, take their turns together.
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

    /**
     * Takes {@code cost} permits when they are there, else throws: see {@link Limiter#tryAcquireOrThrow(String, long)}.
     *
     * @return the allowed outcome
     * @throws RateLimitExceededException when denied, named after the limiter; the key is not in it
     * @throws IllegalArgumentException when {@code cost} is negative
     */
    public Outcome tryAcquireOrThrow(long cost) {
        return Limiter.orThrow(limiter.name(), tryAcquire(cost));
    }

    /**
     * Takes one permit or throws: see {@link #tryAcquireOrThrow(long)}.
     *
     * @throws RateLimitExceededException when denied
     */
    public Outcome tryAcquireOrThrow() {
        return tryAcquireOrThrow(1);
    }

    /**
     * Takes one permit, waiting as long as it takes: see {@link Limiter#acquire(String, long)}.
     *
     * @return the time waited, by the engine's clock
     */
    public Duration acquire() throws InterruptedException {
        return acquire(1);
    }

    /**
     * Takes {@code cost} permits, waiting as long as it takes: see {@link Limiter#acquire(String, long)}.
     *
     * @return the time waited, by the engine's clock
     * @throws InterruptedException when the thread is interrupted before or while it waits: nothing was taken
     * @throws IllegalArgumentException when {@code cost} is negative or can never be admitted
     */
    public Duration acquire(long cost) throws InterruptedException {
        return limiter.limits().lines().acquire(limiter, key, cost, this::tryAcquire);
    }

    /** Takes one permit if it can within {@code timeout}: see {@link Limiter#tryAcquire(String, long, Duration)}. */
    public boolean tryAcquire(Duration timeout) throws InterruptedException {
        return tryAcquire(1, timeout);
    }

    /**
     * Takes {@code cost} permits if it can within {@code timeout}: see
     * {@link Limiter#tryAcquire(String, long, Duration)}.
     *
     * @return whether the permits were taken
     * @throws InterruptedException when the thread is interrupted before or while it waits: nothing was taken
     * @throws IllegalArgumentException when {@code timeout} is null or {@code cost} is negative
     */
    public boolean tryAcquire(long cost, Duration timeout) throws InterruptedException {
        return limiter.limits().lines().tryAcquire(limiter, key, cost, timeout, this::tryAcquire);
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
