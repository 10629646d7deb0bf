package io.sluice.core;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Policy;
import io.sluice.core.policy.Outcome;
import io.sluice.core.request.RequestView;
import io.sluice.core.Engine.QueueGate;
import io.sluice.core.internal.LogThrottle;
import io.sluice.core.store.Check;
import io.sluice.core.store.Lease;
import io.sluice.core.time.TimeSource;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * Decides requests: matches rules and resolves keys, answers a request known to be denied from memory
 * ({@link KnownDenials}), else asks the store for every rule in one call through the {@link StoreGuard} (each rule's
 * failure mode answers when it cannot), remembers what the store denied, gives a front door its last word on a queued
 * request ({@link QueueGate}), and tells the listeners. Thread-safe.
 */
final class RequestDecider {

    /** Logs under the engine's name, the one operators configure. */
    private static final System.Logger LOG = System.getLogger(Engine.class.getName());

    private final TimeSource time;
    private final StoreGuard guard;
    private final KnownDenials denials;
    /** Waited on by the first answers ({@link SharedSide#awaitStart()}). */
    private final SharedSide shared;
    private final Overrides overrides;
    private final AdaptiveLimits adaptive;
    /** Says when a concurrency denial's room is likely back, rather than when its oldest lease expires. */
    private final HoldTimes holds;
    private final List<DecisionListener> listeners;
    /** Per listener, its exceptions: logged at most once a minute, as a listener may fail on every request. */
    private final LogThrottle[] listenerLines;

    RequestDecider(TimeSource time, StoreGuard guard, KnownDenials denials, SharedSide shared,
            AdaptiveLimits adaptive, HoldTimes holds, List<DecisionListener> listeners) {
        this.time = time;
        this.holds = holds;
        this.adaptive = adaptive;
        this.shared = shared;
        this.overrides = shared.overrides();
        this.guard = guard;
        this.denials = denials;
        this.listeners = List.copyOf(listeners);
        this.listenerLines = new LogThrottle[this.listeners.size()];
        Arrays.setAll(listenerLines, i -> new LogThrottle(60_000_000));
    }

    /** See {@link Engine#check(RequestView, List, QueueGate)}. */
    Decision check(RequestView request, List<Rule> candidates, QueueGate queue) {
        shared.awaitStart();
        if (candidates.size() == 1) {
            return checkOne(request, candidates.get(0), queue);
        }
        List<Rule> applied = new ArrayList<>(candidates.size());
        List<Check> checks = new ArrayList<>(candidates.size());
        for (Rule rule : candidates) {
            Check check = checkOf(request, rule);
            if (check != null) {
                applied.add(rule);
                checks.add(check);
            }
        }
        if (checks.isEmpty()) {
            return Decision.NO_RULES;
        }
        return decide(request, applied, checks, queue);
    }

    /** The common case of one rule, without the lists of several. */
    private Decision checkOne(RequestView request, Rule rule, QueueGate queue) {
        Check check = checkOf(request, rule);
        return check == null ? Decision.NO_RULES : decide(request, List.of(rule), List.of(check), queue);
    }

    /**
     * @return the check of {@code rule} for {@code request}, under the key's override when one holds; null when the
     *     rule does not apply to it
     */
    private Check checkOf(RequestView request, Rule rule) {
        if (!rule.matcher().matches(request)) {
            return null;
        }
        String key = rule.countedKey(request);
        if (key == null) {
            return null;
        }
        Policy policy = overrides.apply(rule.name(), key, rule.policyFor(request));
        if (policy.algorithm() == Algorithm.ADAPTIVE_CONCURRENCY) {
            return adaptive.check(rule, key, policy, AdaptiveLimits.critical(request));
        }
        String leaseId = policy.algorithm() == Algorithm.CONCURRENCY ? Engine.newLeaseId() : null;
        return new Check(rule.name(), key, policy, rule.cost(), rule.shadow(), leaseId);
    }

    /** See {@link Engine#inspect(Rule, String, String)}: a cost-0 check of the store, asked directly. */
    Outcome inspect(Rule rule, String key, String tier) {
        shared.awaitStart();
        Policy policy = overrides.apply(rule.name(), key, rule.policy());
        if (tier != null) {
            policy = rule.tiers() == null ? null : rule.tiers().policies().get(tier);
            if (policy == null) {
                throw new NoSuchElementException("no tier named " + tier + " in rule " + rule.name());
            }
        }
        Check peek = policy.algorithm() == Algorithm.ADAPTIVE_CONCURRENCY
                ? adaptive.check(rule, key, policy, true).withCost(0)
                : new Check(rule.name(), key, policy, 0, false,
                        policy.algorithm() == Algorithm.CONCURRENCY ? Engine.newLeaseId() : null);
        return guard.store().evaluate(List.of(peek), time.nowMicros(), time).get(0);
    }

    private Decision decide(RequestView request, List<Rule> applied, List<Check> checks, QueueGate queue) {
        long resetsBefore = denials.resets();       // before anything is read
        long now = time.nowMicros();
        Decision known = denials.deny(applied, checks, now, resetsBefore);
        if (known != null) {
            return notify(request, known, DecisionListener.Event.DENIED_FROM_CACHE);
        }
        boolean[] chargedAtCheck = OutcomeCounting.any(applied) ? new boolean[checks.size()] : null;
        List<Outcome> outcomes = guard.evaluate(checks, now, applied, chargedAtCheck);
        if (outcomes == null) {
            denials.changed(checks);        // the call may have run: what is remembered of its keys may be stale
            return notify(request, queued(request, guard.onStoreFailure(applied, checks, now), queue),
                    DecisionListener.Event.STORE_FAILURE);
        }
        Decision decision = decisionOf(applied, checks, outcomes, chargedAtCheck, now);
        if (!decision.allowed()) {
            decision = denials.remember(checks, holds.honest(decision), now, resetsBefore);
        } else {
            denials.changed(checks);        // admitted: the denials remembered of its keys no longer hold
        }
        // after the store's denials are remembered: a refusal to queue is the front door's, not the store's
        decision = queued(request, decision, queue);
        return notify(request, decision, decision.allowed()
                ? decision.shadowDenied() ? DecisionListener.Event.SHADOW_DENIED : DecisionListener.Event.ALLOWED
                : DecisionListener.Event.DENIED);
    }

    /**
     * @return {@code decision}, or the denial {@code queue} answers in its place when it admits the request after a
     *     delay; the leases of a decision replaced are released, whatever the gate answered
     * @throws IllegalStateException when the gate answers an allowed decision other than {@code decision}: a request
     *     must neither proceed without the leases its admission took nor leave them held by nobody (an exception of
     *     the gate is thrown on, {@code decision}'s leases released too)
     */
    private Decision queued(RequestView request, Decision decision, QueueGate queue) {
        if (queue == null || !decision.allowed() || decision.delayMicros() == 0) {
            return decision;
        }
        Decision answer;
        try {
            answer = queue.admit(request, decision);
        } catch (RuntimeException | Error e) {
            guard.release(decision);      // not queued: nothing is left to release its leases
            throw e;
        }
        if (answer == decision) {
            return decision;        // queued: its leases are released when its response completes
        }
        guard.release(decision);          // refused: it holds nothing
        if (answer == null || answer.allowed()) {
            throw new IllegalStateException("a queue gate answers the admitted decision itself or a denial, got "
                    + (answer == null ? "null" : "an allowed decision delayed " + answer.delayMicros() + " us"));
        }
        return answer;
    }

    /**
     * @param chargedAtCheck see {@link OutcomeCounting#evaluate}; null when no rule counts by outcome
     * @param now when the store's outcomes were decided
     */
    private static Decision decisionOf(List<Rule> applied, List<Check> checks, List<Outcome> outcomes,
            boolean[] chargedAtCheck, long now) {
        if (checks.size() == 1) {
            Check c = checks.get(0);
            Outcome o = outcomes.get(0);
            return Decision.of(List.of(new RuleOutcome(applied.get(0), c.policy(), o, RuleOutcome.Source.STORE,
                            chargedAtCheck != null && chargedAtCheck[0])),
                    c.leaseId() != null && o.allowed() ? List.of(new Lease(c.rule(), c.key(), c.policy(), c.leaseId()))
                            : List.of(), now);
        }
        List<RuleOutcome> results = new ArrayList<>(checks.size());
        List<Lease> leases = new ArrayList<>(1);
        for (int i = 0; i < checks.size(); i++) {
            Check c = checks.get(i);
            Outcome o = outcomes.get(i);
            results.add(new RuleOutcome(applied.get(i), c.policy(), o, RuleOutcome.Source.STORE,
                    chargedAtCheck != null && chargedAtCheck[i]));
            if (c.leaseId() != null && o.allowed()) {
                leases.add(new Lease(c.rule(), c.key(), c.policy(), c.leaseId()));
            }
        }
        return Decision.of(results, leases, now);
    }

    private Decision notify(RequestView request, Decision decision, DecisionListener.Event event) {
        for (int i = 0; i < listeners.size(); i++) {
            DecisionListener listener = listeners.get(i);
            try {
                listener.onDecision(request, decision, event);
            } catch (RuntimeException e) {
                // at most once a minute: a listener that fails on denials, say, would log a line per hostile request
                listenerLines[i].log(LOG, Level.WARNING, time.nowMicros(),
                        "decision listener " + listener.getClass().getName() + " failed", e);
            }
        }
        return decision;
    }
}
