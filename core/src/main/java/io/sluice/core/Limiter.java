package io.sluice.core;

import io.sluice.core.policy.Policy;
import io.sluice.core.policy.Outcome;
import java.time.Duration;
import java.util.Objects;

/**
 * One named limit of an {@link Engine}, bound to its policy: {@code engine.limiter("stripe", Policy.parse("100/1s"))}.
 * Thread-safe; holds no state of its own (the engine's store does), so any number of handles on the same name and
 * policy share the same counts as {@link Engine#tryAcquire(String, String, Policy, long)}, and decide as it does:
 * through the engine's denial cache and circuit breaker, and, while the store cannot answer, by this limiter's
 * {@link #onStoreFailure() failure mode} (allow unless {@link Engine#limiter(String, Policy, Rule.FailureMode)} names
 * another).
 *
 * <p><b>Waiting for a permit</b>, for outbound calls: {@link #acquire(String, long)} waits as long as it takes, and
 * {@link #tryAcquire(String, long, Duration)} up to a timeout, as Guava's {@code RateLimiter.acquire} and
 * {@code tryAcquire(permits, timeout)} do, on any store:
 * <ul>
 * <li><b>No spinning.</b> A denied caller parks until the outcome's {@link Outcome#retryAfterMicros() retry time} (the
 *     store says when a permit comes back), then asks again; only the first caller of a key's line asks.
 * <li><b>Fair within this JVM.</b> The callers waiting for one key of one limit name (through any handle) form a line,
 *     first come first served, whatever their costs: a permit that comes back goes to the first, and a newcomer queues
 *     behind, so a stream of newcomers cannot starve a waiter. The non-blocking {@link #tryAcquire(String, long)}
 *     does not queue: it takes a permit that is there, as {@link java.util.concurrent.Semaphore#tryAcquire()} does on
 *     a fair semaphore. A line exists only while someone is in it, so keys take no memory once nobody waits on them.
 * <li><b>Across nodes</b> (a shared store such as Redis) there is no common line: each node's first waiter asks the
 *     store again at the retry time the store gave it, and the store admits the asks in the order they reach it. No
 *     node asks more often than its retry times say, and none is promised a turn: fairness between nodes is by retry
 *     times.
 * <li><b>Interruptible.</b> Both throw {@link InterruptedException} when the thread is interrupted while waiting (or
 *     is on entry), as {@link java.util.concurrent.Semaphore#acquire()} does, and clear its interrupt status. An
 *     interrupted wait has taken nothing: a denied attempt consumes nothing, so the key's count is as if the caller
 *     had never come. (Guava's {@code acquire} is uninterruptible; a checked exception makes the caller decide, and
 *     {@code Thread.currentThread().interrupt()} in its handler keeps the status for code further up.)
 * <li><b>Never-passing costs fail at once.</b> A cost the policy can never admit (above its capacity:
 *     {@link Outcome#never()}) is an {@link IllegalArgumentException} from {@code acquire} and {@code false} from
 *     {@code tryAcquire}, without waiting.
 * <li><b>Queue mode</b> ({@code max-wait}): an outcome that admits after a {@link Outcome#delayMicros() delay} takes
 *     the permits at once, and the call returns after the delay (which {@code max-wait} bounds, and which may end
 *     after the timeout of {@code tryAcquire}); an interrupt during that delay throws, the permits staying taken.
 * <li><b>Store failures</b> answer by the {@link #onStoreFailure() failure mode}, as for {@code tryAcquire}: allow
 *     admits at once, deny retries after a second (so {@code acquire} waits the outage out).
 * </ul>
 * Waits and deadlines are read on the engine's clock ({@link Engine.Builder#timeSource}), and waited through its
 * {@link io.sluice.core.time.Sleeper}: {@code LockSupport.parkNanos} on a real clock; a test's manual clock can move
 * them by hand.
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
     * Takes {@code cost} permits for {@code key} when they are there, as {@link #tryAcquire(String, long)}, and throws
     * when they are not: for callers that want a denial as an exception rather than an outcome to test. Never waits
     * (for that, {@link #acquire(String, long)}). While the store cannot answer, decides by the
     * {@link #onStoreFailure() failure mode}, as {@code tryAcquire} does (a deny mode throws with a retry-after of one
     * second).
     *
     * @param key the partition; not in the exception or its message
     * @param cost the weight, >= 0 (0 peeks)
     * @return the allowed outcome (remaining, reset-after; its delay in queue mode, which the caller is to wait)
     * @throws RateLimitExceededException when denied: named after this limit, with the outcome's limit, remaining and
     *     retry-after ({@link RateLimitExceededException#NEVER} for a cost above the capacity)
     * @throws IllegalArgumentException when {@code cost} is negative
     */
    public Outcome tryAcquireOrThrow(String key, long cost) {
        return orThrow(name, tryAcquire(key, cost));
    }

    /**
     * Takes one permit for {@code key} or throws: see {@link #tryAcquireOrThrow(String, long)}.
     *
     * @throws RateLimitExceededException when denied
     */
    public Outcome tryAcquireOrThrow(String key) {
        return tryAcquireOrThrow(key, 1);
    }

    static Outcome orThrow(String name, Outcome o) {
        if (!o.allowed()) {
            throw RateLimitExceededException.of(name, o);
        }
        return o;
    }

    /**
     * Takes one permit for {@code key}, waiting as long as it takes: see {@link #acquire(String, long)}.
     *
     * @return the time waited, by the engine's clock ({@link Duration#ZERO} when the permit was there)
     */
    public Duration acquire(String key) throws InterruptedException {
        return acquire(key, 1);
    }

    /**
     * Takes {@code cost} permits for {@code key}, waiting as long as it takes (see the class comment): in line behind
     * the callers already waiting for {@code key} in this JVM, then, while the store denies, until each denial's retry
     * time.
     *
     * @param key the partition
     * @param cost the weight, >= 0
     * @return the time waited, by the engine's clock: {@link Duration#ZERO} when the permits were there; in queue mode,
     *     the outcome's delay included
     * @throws InterruptedException when the thread is interrupted before or while it waits: nothing was taken (but see
     *     queue mode in the class comment)
     * @throws IllegalArgumentException when {@code key} is null, {@code cost} is negative, or the policy can never
     *     admit {@code cost} ({@link Outcome#never()}): then at once
     */
    public Duration acquire(String key, long cost) throws InterruptedException {
        return limits.lines().acquire(this, key, cost, c -> tryAcquire(key, c));
    }

    /**
     * Takes one permit for {@code key} if it can within {@code timeout}: see {@link #tryAcquire(String, long, Duration)}.
     */
    public boolean tryAcquire(String key, Duration timeout) throws InterruptedException {
        return tryAcquire(key, 1, timeout);
    }

    /**
     * Takes {@code cost} permits for {@code key} if it can within {@code timeout}, by the engine's clock (see the class
     * comment). It waits in line behind the callers already waiting for {@code key} in this JVM, then asks; while the
     * store denies, it waits until the denial's retry time and asks again. It gives up, and returns false, as soon as
     * it knows it cannot succeed in time, without waiting for the deadline: when a denial's retry time is after the
     * deadline (so with a timeout of zero it asks once, unless others wait before it), as soon as the first of the line
     * learns that it will ask again only after the deadline, or when the deadline passes while it waits its turn.
     *
     * @param key the partition
     * @param cost the weight, >= 0
     * @param timeout the longest to wait; zero or negative: no waiting
     * @return whether the permits were taken; false for a cost the policy can never admit, at once
     * @throws InterruptedException when the thread is interrupted before or while it waits: nothing was taken
     * @throws IllegalArgumentException when {@code key} or {@code timeout} is null or {@code cost} is negative
     */
    public boolean tryAcquire(String key, long cost, Duration timeout) throws InterruptedException {
        return limits.lines().tryAcquire(this, key, cost, timeout, c -> tryAcquire(key, c));
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

    /** @return the programmatic API this handle calls */
    ProgrammaticLimits limits() {
        return limits;
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
