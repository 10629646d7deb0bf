package io.sluice.core;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Policy;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.PolicyParser;
import io.sluice.core.store.Check;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.store.Store;
import io.sluice.core.time.Sleeper;
import io.sluice.core.time.TimeSource;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The programmatic API behind {@link Engine#tryAcquire(String, String, Policy, long)}, {@link Limiter} and
 * {@link KeyLimiter}: one check of a named limit, without a request or a rule, decided through the path a request
 * takes. A key known to be denied is answered from memory ({@link KnownDenials}: the denial cache until its retry time,
 * a policy's penalty); else the store is asked through the {@link StoreGuard} (circuit breaker, leases of failed
 * calls), and when it cannot answer the caller's failure mode does. Thread-safe.
 *
 * <p>On the {@link MemoryStore}, a rate policy without a penalty is decided by the store directly, without a check or a
 * list: there is no round trip for the denial cache to save (its lookup would cost what the store's does) and no
 * remote store to fail, and the answers are the same, the denial cache being exact.
 *
 * <p>The blocking calls ({@link Limiter#acquire(String, long)}, {@link Limiter#tryAcquire(String, long, Duration)} and
 * their {@link KeyLimiter} forms) wait in the engine's {@link WaitingLines}, through the {@link Sleeper} of its clock.
 */
final class ProgrammaticLimits {

    /** The failure mode of the programmatic API unless a {@link Limiter} names another: allow, as a rule's. */
    static final Rule.FailureMode DEFAULT_ON_STORE_FAILURE = Rule.FailureMode.ALLOW;
    /** The most limit names whose policy is kept for {@link #inspect}: {@value}. */
    static final int MAX_NAMES = 10_000;

    private final MemoryStore memory;       // the store when it is the memory store, else null
    private final TimeSource time;
    private final StoreGuard guard;
    private final KnownDenials denials;
    /** Waited on by the first answers ({@link SharedSide#awaitStart()}). */
    private final SharedSide shared;
    private final WaitingLines lines;
    /** The policy each limit name was last decided by, for {@link #inspect}: at most {@link #MAX_NAMES} names. */
    private final Map<String, Policy> named = new ConcurrentHashMap<>();

    ProgrammaticLimits(Store store, TimeSource time, StoreGuard guard, KnownDenials denials, SharedSide shared) {
        this.memory = store instanceof MemoryStore m ? m : null;
        this.time = time;
        this.guard = guard;
        this.denials = denials;
        this.shared = shared;
        this.lines = new WaitingLines(time, Sleeper.of(time));
    }

    /** @return the lines of the callers waiting for a permit, one per limit name and key */
    WaitingLines lines() {
        return lines;
    }

    /**
     * See {@link Engine#tryAcquire(String, String, Policy, long)}.
     *
     * @param onStoreFailure what answers while the store cannot
     */
    Outcome tryAcquire(String name, String key, Policy policy, long cost, Rule.FailureMode onStoreFailure) {
        if (policy != null && policy.algorithm() == Algorithm.ADAPTIVE_CONCURRENCY) {
            throw new IllegalArgumentException("tryAcquire cannot apply an adaptive concurrency limit (it learns from"
                    + " the completion of requests, which a call cannot report), got \"" + policy + "\" for limit \""
                    + name + "\"; use a rule with Engine.check and Engine.release");
        }
        if (direct(policy)) {
            return memory.tryAcquire(name, key, policy, cost, time);     // no Check, no list; it checks the arguments
        }
        Check.requireValid(name, key, policy, cost);
        Check check = new Check(name, key, policy, cost, false,
                policy.algorithm() == Algorithm.CONCURRENCY ? Engine.newLeaseId() : null);
        return decide(check, onStoreFailure);
    }

    /** See {@link Engine#limiter(String, Policy, Rule.FailureMode)}: checks the arguments, then makes the handle. */
    Limiter limiter(String name, Policy policy, Rule.FailureMode onStoreFailure) {
        if (name == null || policy == null || onStoreFailure == null) {
            throw new IllegalArgumentException("name, policy and onStoreFailure are required");
        }
        if (policy.algorithm().concurrent()) {
            throw new IllegalArgumentException("a Limiter cannot hold concurrency leases (it has no way to release "
                    + "them), got \"" + PolicyParser.format(policy) + "\" for limit \"" + name
                    + "\"; use a rule with Engine.check and Engine.release");
        }
        named(name, policy);
        return new Limiter(this, name, policy, onStoreFailure);
    }

    /**
     * Keeps {@code policy} as the one limit {@code name} is decided by, so that {@link #inspect} knows it: a handle's at
     * its making, {@link Engine#tryAcquire(String, String, Policy, long)}'s at each call (a lookup when it is known).
     * Names beyond {@link #MAX_NAMES} are not kept.
     */
    void named(String name, Policy policy) {
        if (name == null || policy == null) {
            return;                                 // refused by the call that follows
        }
        Policy known = named.get(name);
        if (known == null ? named.size() < MAX_NAMES : !known.equals(policy)) {
            named.put(name, policy);
        }
    }

    /**
     * See {@link Engine#inspect(String, String, String)}: {@code key}'s state under the limit {@code name} as the store
     * holds it, by a check of cost 0, which consumes nothing; the store is asked directly.
     *
     * @return the outcome, or null when no limit of that name was decided (or it is beyond {@link #MAX_NAMES})
     */
    Outcome inspect(String name, String key) {
        Policy policy = named.get(name);
        if (policy == null) {
            return null;
        }
        Check peek = new Check(name, key, policy, 0, false,
                policy.algorithm() == Algorithm.CONCURRENCY ? Engine.newLeaseId() : null);
        return guard.store().evaluate(List.of(peek), time.nowMicros(), time).get(0);
    }

    /** The guarded path: known denials, then the store behind the breaker, then the failure mode. */
    private Outcome decide(Check check, Rule.FailureMode onStoreFailure) {
        shared.awaitStart();
        long resetsBefore = denials.resets();       // before anything is read
        long now = time.nowMicros();
        Outcome known = denials.deny(check, now, resetsBefore);
        if (known != null) {
            return known;
        }
        List<Outcome> outcomes = guard.evaluate(List.of(check), now);
        if (outcomes == null) {
            denials.changed(check);         // the call may have run: what is remembered of the key may be stale
            return guard.onStoreFailure(check, onStoreFailure, now);
        }
        Outcome outcome = outcomes.get(0);
        if (outcome.allowed()) {
            denials.changed(check);         // admitted: a denial remembered of the key no longer holds
            return outcome;
        }
        return denials.remember(check, outcome, now, resetsBefore);
    }

    /**
     * The handle of {@link Limiter#key(String)}: where the memory store decides directly, it keeps the key's cell;
     * else each call is the limiter's.
     */
    KeyLimiter keyLimiter(Limiter limiter, String key) {
        MemoryStore.KeyHandle handle = direct(limiter.policy())
                ? memory.handle(limiter.name(), key, limiter.policy(), time)
                : null;
        return new KeyLimiter(limiter, key, handle);
    }

    /** @return whether the memory store decides {@code policy} directly (see the class comment) */
    private boolean direct(Policy policy) {
        return memory != null && policy != null && !policy.algorithm().concurrent()
                && policy.penaltyMicros() == 0;
    }
}
