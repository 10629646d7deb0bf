package io.sluice.core;

import io.sluice.core.policy.Policy;
import io.sluice.core.policy.Outcome;
import io.sluice.core.log.LogText;
import io.sluice.core.internal.LogThrottle;
import io.sluice.core.store.Check;
import io.sluice.core.store.CircuitBreaker;
import io.sluice.core.store.Lease;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.store.Store;
import io.sluice.core.store.StoreException;
import io.sluice.core.time.TimeSource;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The configured store behind a circuit breaker, and what answers while it cannot: each rule's failure mode (or the
 * programmatic API's), with a local store for those that fall back to this node's share. Every call a decision, of a
 * request or of the programmatic API, makes to the store goes through here: the leases of earlier failed calls are
 * released first ({@link OrphanedLeases}), a failure is counted by the breaker, and no exception of the store reaches
 * the caller. Thread-safe.
 */
final class StoreGuard implements AutoCloseable {

    /** Logs under the engine's name, the one operators configure. */
    private static final System.Logger LOG = System.getLogger(Engine.class.getName());

    /** Retry-after sent with a 503 while the store is down and a rule denies meanwhile: {@value} µs. */
    static final long STORE_RETRY_MICROS = 1_000_000;

    private final Store store;
    private final Store local;
    private final TimeSource time;
    private final int nodeCount;
    private final CircuitBreaker breaker;
    /** Says when the rules answer by their failure modes, and counts their decisions. */
    private final FailureModes failureModes;
    private final OrphanedLeases orphans = new OrphanedLeases();
    /** Failed releases and charges: logged at most once a minute. */
    private final LogThrottle failureLines = new LogThrottle(60_000_000);
    /** Unexpected exceptions of the store (not {@link StoreException}): logged at most once a minute. */
    private final LogThrottle storeBugLines = new LogThrottle(60_000_000);

    /**
     * @param nodeCount how many nodes share the limits: a rule that falls back locally gets {@code limit / nodeCount}
     * @param localMaximumKeys the most keys the local fallback tracks
     * @param inForce the rules in force, named in the log and {@link #health()} when the store begins to fail
     */
    StoreGuard(Store store, TimeSource time, int nodeCount, long localMaximumKeys, int failureThreshold,
            long coolDownMicros, Supplier<List<Rule>> inForce) {
        this.store = store.shared() ? new LeasedPermits(store, time) : store;
        this.time = time;
        this.nodeCount = nodeCount;
        this.local = MemoryStore.builder().maximumKeys(localMaximumKeys).timeSource(time).build();
        String name = nameOf(store);
        this.failureModes = new FailureModes(name, nodeCount, coolDownMicros, inForce);
        this.breaker = new CircuitBreaker(name, failureThreshold, coolDownMicros, time, failureModes);
    }

    /** @return the simple name of the store's class, or of its nearest named superclass (an anonymous class has none) */
    private static String nameOf(Store store) {
        Class<?> c = store.getClass();
        while (c.getSimpleName().isEmpty()) {
            c = c.getSuperclass();
        }
        return c.getSimpleName();
    }

    /** @return the configured store, unguarded (admin calls, whose callers answer its failures themselves) */
    Store store() {
        return store;
    }

    /** @return what leased permits did on this node; all zero when the store is this process's alone */
    LeaseCounts leaseCounts() {
        return store instanceof LeasedPermits l ? l.counts() : new LeaseCounts(0, 0, 0, 0, 0);
    }

    /** @return the state of the breaker */
    CircuitBreaker.State state() {
        return breaker.state();
    }

    /** @return whether the store answers, and while it does not, which rules answer by which failure mode */
    StoreHealth health() {
        return failureModes.health();
    }

    /** {@link #evaluate(List, long, List, boolean[])} of checks no rule counts by outcome. */
    List<Outcome> evaluate(List<Check> checks, long now) {
        return evaluate(checks, now, List.of(), null);
    }

    /**
     * Asks the store for {@code checks}, through {@link OutcomeCounting#evaluate} (one call, unless a rule counts by
     * outcome), behind the breaker. A failed call's leases are kept for release.
     *
     * @param applied the rules of the checks, read only when {@code chargedAtCheck} is not null
     * @param chargedAtCheck see {@link OutcomeCounting#evaluate}; null when no rule counts by outcome
     * @return the outcomes; null when the circuit is open or the call failed: the failure modes answer
     * @throws Error an error of the store, the breaker told of it
     */
    List<Outcome> evaluate(List<Check> checks, long now, List<Rule> applied, boolean[] chargedAtCheck) {
        if (!breaker.tryAcquire()) {
            return null;
        }
        try {
            orphans.releaseDue(store, now);         // best effort: never fails this call
            List<Outcome> outcomes = OutcomeCounting.evaluate(store, time, applied, checks, now, chargedAtCheck);
            breaker.onSuccess();
            return outcomes;
        } catch (RuntimeException e) {
            // any exception, not only StoreException: a store's bug must neither fail the request nor leave the
            // breaker's probe taken for good
            failed(e);
            orphans.keepAll(checks);
            return null;
        } catch (Error e) {
            breaker.onFailure(e);        // not left half-open with its probe taken for good
            throw e;
        }
    }

    /**
     * Charges the checks of rules that count by outcome: {@code localCharges} in the local fallback, where they were
     * checked, and {@code charges} in the store behind the breaker, one at a time (one rule's full bucket must not void
     * another's charge). A failure is logged at most once a minute; nothing is retried.
     */
    void charge(List<Check> charges, List<Check> localCharges, long now) {
        for (Check c : localCharges) {
            local.evaluate(List.of(c), now, time);
        }
        if (charges.isEmpty() || !breaker.tryAcquire()) {
            return;
        }
        try {
            for (Check c : charges) {
                store.evaluate(List.of(c), now, time);
            }
            breaker.onSuccess();
        } catch (RuntimeException e) {
            failed(e);
            warnThrottled("could not charge " + charges.size() + " rule(s) that count by outcome: "
                    + LogText.safe(e.getMessage()), e, now);
        } catch (Error e) {
            breaker.onFailure(e);        // as in evaluate: not left half-open with its probe taken for good
            throw e;
        }
    }

    /**
     * Releases the concurrency leases a decision holds, in the store that granted them. A failure to reach the store is
     * logged, and the leases are kept and released before a later store call; while the circuit is open that release
     * is not even tried (it would only wait for its timeout on the request's thread).
     */
    void release(Decision decision) {
        if (decision.leases().isEmpty()) {
            return;
        }
        long now = time.nowMicros();
        boolean fromLocal = decision.outcomes().stream().anyMatch(o -> o.source() == RuleOutcome.Source.LOCAL_FALLBACK);
        if (!fromLocal && breaker.state() == CircuitBreaker.State.OPEN) {
            decision.leases().forEach(orphans::keep);       // released before a later store call
            return;
        }
        try {
            (fromLocal ? local : store).release(decision.leases(), now);
        } catch (RuntimeException e) {
            if (!fromLocal) {
                decision.leases().forEach(orphans::keep);   // released before a later store call
            }
            warnThrottled("could not release " + decision.leases().size()
                    + " concurrency lease(s); they are released before a later store call (or expire): "
                    + LogText.safe(e.getMessage()), e, now);
        }
    }

    /** @return the leases of failed store calls waiting to be released */
    int orphanedLeases() {
        return orphans.size();
    }

    /** Each rule's failure mode: allow, deny (503), or a local limit sized to this node's share. */
    Decision onStoreFailure(List<Rule> applied, List<Check> checks, long now) {
        failureModes.answered(applied, now);
        int n = checks.size();
        Check[] shares = new Check[n];      // per check of a rule that falls back locally: its share, else null
        List<Rule> localRules = new ArrayList<>();
        List<Check> localChecks = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (applied.get(i).onStoreFailure() == Rule.FailureMode.LOCAL) {
                shares[i] = localShare(checks.get(i));
                localRules.add(applied.get(i));
                localChecks.add(shares[i]);
            }
        }
        // a rule that counts by outcome is looked at, not charged, here as in the store: charge() counts its response
        boolean[] localCharged = OutcomeCounting.any(localRules) ? new boolean[localChecks.size()] : null;
        List<Outcome> localOutcomes = localChecks.isEmpty() ? List.of()
                : OutcomeCounting.evaluate(local, time, localRules, localChecks, now, localCharged);
        List<RuleOutcome> results = new ArrayList<>(n);
        List<Lease> leases = new ArrayList<>();
        for (int i = 0, li = 0; i < n; i++) {
            Rule rule = applied.get(i);
            Check c = checks.get(i);
            if (shares[i] == null) {
                results.add(new RuleOutcome(rule, c.policy(), withoutStore(rule.onStoreFailure(), c.policy()),
                        sourceOf(rule.onStoreFailure())));
                continue;
            }
            Outcome o = localOutcomes.get(li);
            results.add(new RuleOutcome(rule, shares[i].policy(), o, RuleOutcome.Source.LOCAL_FALLBACK,
                    localCharged != null && localCharged[li]));
            if (c.leaseId() != null && o.allowed()) {
                leases.add(new Lease(c.rule(), c.key(), shares[i].policy(), c.leaseId()));
            }
            li++;
        }
        return Decision.of(results, leases, now);
    }

    /**
     * One check's answer by {@code mode} while the store is unavailable: that of the programmatic API, which has no
     * rule. {@link Rule.FailureMode#LOCAL} asks the local fallback for this node's share.
     */
    Outcome onStoreFailure(Check c, Rule.FailureMode mode, long now) {
        failureModes.answered(c.rule(), mode, now);
        return mode == Rule.FailureMode.LOCAL ? local.evaluate(List.of(localShare(c)), now, time).get(0)
                : withoutStore(mode, c.policy());
    }

    /** @return the answer of a failure mode that asks no store: the whole limit allowed, or a denial for a second */
    private static Outcome withoutStore(Rule.FailureMode mode, Policy policy) {
        long limit = policy.limit();
        return mode == Rule.FailureMode.ALLOW ? Outcome.allow(limit, limit, 0)
                : Outcome.deny(limit, 0, 0, STORE_RETRY_MICROS);
    }

    private static RuleOutcome.Source sourceOf(Rule.FailureMode mode) {
        return switch (mode) {
            case ALLOW -> RuleOutcome.Source.FAILURE_ALLOWED;
            case DENY -> RuleOutcome.Source.FAILURE_DENIED;
            case LOCAL -> RuleOutcome.Source.LOCAL_FALLBACK;
        };
    }

    /** @return {@code c} under this node's share of its policy, for the local fallback */
    private Check localShare(Check c) {
        Policy local = c.policy().share(nodeCount);
        return new Check(c.rule(), c.key(), local, c.cost(), c.shadow(), c.leaseId());
    }

    /**
     * A store call failed: the breaker counts it; an exception other than {@link StoreException} is a bug, logged with
     * its stack trace at most once a minute (failures between successes never open the breaker, and would otherwise log
     * one trace per request).
     */
    private void failed(RuntimeException e) {
        if (!(e instanceof StoreException)) {
            storeBugLines.log(LOG, Level.WARNING, time.nowMicros(),
                    "the rate-limit store failed unexpectedly; the rules' on-store-failure modes answer", e);
        }
        breaker.onFailure(e);
    }

    /**
     * Logs a failure of a release or a charge at most once a minute, with the count of those not logged since: while
     * the store is down every completing request would log one. The store's message in {@code message} must be
     * {@link LogText#safe(String) safe} already: it may quote a key, which a client chose.
     */
    private void warnThrottled(String message, RuntimeException e, long now) {
        // a store's bug with its stack trace; a StoreException (the store unreachable) says enough in its message
        failureLines.log(LOG, Level.WARNING, now, message, e instanceof StoreException ? null : e);
    }

    /**
     * Forgets what this node alone holds of a key under a rule (another node reset it in the store): its leased blocks
     * and its state in the local fallback.
     */
    void forgetLocal(String rule, String key) {
        if (store instanceof LeasedPermits leased) {
            leased.dropBlocks(rule, key);
        }
        local.reset(rule, key);
    }

    /** Forgets a key's state under a rule in the store and in the local fallback. */
    void reset(String rule, String key) {
        store.reset(rule, key);
        local.reset(rule, key);
    }

    /**
     * Stops the threads this guard started in front of the store (leased permits' takes, {@link LeasedPermits#stopTakes()})
     * without closing the store. Idempotent.
     */
    void detach() {
        if (store instanceof LeasedPermits leased) {
            leased.stopTakes();
        }
    }

    /** Stops the threads this guard started and closes the store. */
    @Override
    public void close() {
        store.close();
    }
}
