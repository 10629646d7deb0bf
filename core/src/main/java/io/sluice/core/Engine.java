package io.sluice.core;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Policy;
import io.sluice.core.policy.Outcome;
import io.sluice.core.request.RequestView;
import io.sluice.core.policy.PolicyParser;
import io.sluice.core.store.Check;
import io.sluice.core.store.CircuitBreaker;
import io.sluice.core.store.Lease;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.store.Store;
import io.sluice.core.store.StoreException;
import io.sluice.core.log.LogText;
import io.sluice.core.log.LogThrottle;
import io.sluice.core.time.TimeSource;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Matches rules, resolves keys, evaluates every rule of a request in one store call, and returns a
 * {@link Decision}. Thread-safe; one per application.
 *
 * <pre>
 * Engine engine = Engine.builder()
 *         .rule(Rule.builder("per-ip").policy("100/1m").key(KeyResolvers.ip(ClientIpResolver.direct())).build())
 *         .store(MemoryStore.create())
 *         .build();
 * Decision d = engine.check(request);
 * </pre>
 */
public final class Engine implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(Engine.class.getName());

    private final List<Rule> rules;
    private final Store store;
    private final TimeSource time;
    private final Store local;
    private final int nodeCount;
    private final CircuitBreaker breaker;
    /**
     * Concurrency leases of store calls that failed: a call that timed out may still have run and taken them, and
     * nothing else would release them before their lease timeout (a client of a one-in-flight limit would be denied
     * for a minute with nothing in flight). Also the leases of decisions whose release failed. Released, best effort,
     * before the next store call. Bounded; past the bound a lease is left to expire.
     */
    private final java.util.concurrent.ConcurrentLinkedQueue<Lease> orphans = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private final java.util.concurrent.atomic.AtomicInteger orphanCount = new java.util.concurrent.atomic.AtomicInteger();
    /** The most leases of failed calls kept for release: {@value}. */
    static final int MAX_ORPHANS = 10_000;
    /** How long after a failed release of such leases the next is tried: {@value} µs. */
    static final long ORPHAN_RETRY_MICROS = 1_000_000;
    /** Store time before which no release of such leases is tried (after one failed). */
    private volatile long orphansRetryAt;
    private volatile boolean orphanFailureLogged;
    /** Failed releases and charges: logged at most once a minute. */
    private final LogThrottle failureLines = new LogThrottle(60_000_000);
    /** Unexpected exceptions of the store (not {@link StoreException}): logged at most once a minute. */
    private final LogThrottle storeBugLines = new LogThrottle(60_000_000);
    /** Per listener, its exceptions: logged at most once a minute, as a listener may fail on every request. */
    private final LogThrottle[] listenerLines;
    private final DenialCache denials;
    private final PenaltyBox penalties;
    /**
     * Counts {@link #reset}s: a decision remembers a denial (denial cache, penalty box) only if no reset ran since it
     * began, else a denial read from the store before a reset would be remembered after it and undo the reset.
     */
    private final java.util.concurrent.atomic.AtomicLong resets = new java.util.concurrent.atomic.AtomicLong();
    private final List<DecisionListener> listeners;

    private Engine(Builder b) {
        this.rules = List.copyOf(b.rules);
        this.time = b.time;
        this.store = b.store != null ? b.store : MemoryStore.builder().timeSource(b.time).build();
        this.local = MemoryStore.builder().maximumKeys(b.localMaximumKeys).timeSource(b.time).build();
        this.nodeCount = b.nodeCount;
        this.breaker = new CircuitBreaker(store.getClass().getSimpleName(), b.failureThreshold, b.coolDownMicros, time);
        this.denials = b.denialCacheSize > 0 ? new DenialCache(b.denialCacheSize, time) : null;
        this.penalties = new PenaltyBox(Math.max(b.denialCacheSize, DenialCache.DEFAULT_SIZE), time);
        this.listeners = List.copyOf(b.listeners);
        this.listenerLines = new LogThrottle[listeners.size()];
        Arrays.setAll(listenerLines, i -> new LogThrottle(60_000_000));
    }

    public static Builder builder() {
        return new Builder();
    }

    /** @return the rules, in evaluation order */
    public List<Rule> rules() {
        return rules;
    }

    /** @return the time source every decision reads */
    public TimeSource timeSource() {
        return time;
    }

    /** Decides a request under every rule that matches it, in one store call. */
    public Decision check(RequestView request) {
        return check(request, rules);
    }

    /** Decides a request under the given rules (for example those a JAX-RS annotation selects). */
    public Decision check(RequestView request, List<Rule> candidates) {
        return check(request, candidates, null);
    }

    /**
     * {@link #check(RequestView, List)}, with the caller's last word on a decision that admits the request after a
     * delay (queue mode, {@code max-wait}): {@code queue} may refuse to queue it (the servlet filter holding as many
     * requests queued as it may). The listeners see the decision it answers, so such a refusal is reported once, as
     * the denial the client gets, and the leases the admitted decision held are released here.
     *
     * @param queue asked about each decision that is allowed with {@link Decision#delayMicros()} &gt; 0, and about no
     *     other; null queues every such request
     * @throws IllegalStateException when {@code queue} answers an allowed decision other than the one it was asked
     *     about (see {@link QueueGate#admit})
     */
    public Decision check(RequestView request, List<Rule> candidates, QueueGate queue) {
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
        return check(request, applied, checks, queue);
    }

    /** The common case of one rule, without the lists of several. */
    private Decision checkOne(RequestView request, Rule rule, QueueGate queue) {
        Check check = checkOf(request, rule);
        return check == null ? Decision.NO_RULES : check(request, List.of(rule), List.of(check), queue);
    }

    /**
     * A front door's last word on a decision that admits a request after a delay, before any listener sees it: see
     * {@link Engine#check(RequestView, List, QueueGate)}.
     */
    @FunctionalInterface
    public interface QueueGate {

        /**
         * @param request the request
         * @param admitted allowed, with {@link Decision#delayMicros()} &gt; 0 (a wait an enforced rule imposes: a
         *     shadow rule delays nothing)
         * @return {@code admitted} itself to queue the request (it keeps its concurrency leases), or the denial that
         *     takes its place (the leases {@code admitted} holds are then released); never another allowed decision
         */
        Decision admit(RequestView request, Decision admitted);
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
            release(decision);      // not queued: nothing is left to release its leases
            throw e;
        }
        if (answer == decision) {
            return decision;        // queued: its leases are released when its response completes
        }
        release(decision);          // refused: it holds nothing
        if (answer == null || answer.allowed()) {
            throw new IllegalStateException("a queue gate answers the admitted decision itself or a denial, got "
                    + (answer == null ? "null" : "an allowed decision delayed " + answer.delayMicros() + " us"));
        }
        return answer;
    }

    /** @return the check of {@code rule} for {@code request}; null when the rule does not apply to it */
    private static Check checkOf(RequestView request, Rule rule) {
        if (!rule.matcher().matches(request)) {
            return null;
        }
        String key = rule.resolveKey(request);
        if (key == null) {
            if (rule.onMissingKey() == Rule.MissingKey.SKIP) {
                return null;
            }
            key = Rule.ANONYMOUS_KEY;
        }
        Policy policy = rule.policyFor(request);
        String leaseId = policy.algorithm() == Algorithm.CONCURRENCY ? newLeaseId() : null;
        return new Check(rule.name(), key, policy, rule.cost(), rule.shadow(), leaseId);
    }

    private Decision check(RequestView request, List<Rule> applied, List<Check> checks, QueueGate queue) {
        long resetsBefore = resets.get();       // before anything is read: see forgetIfReset
        long now = time.nowMicros();
        // every rule known to deny now, blocked by a penalty or remembered denied, so that the answer's retry time is
        // the longest of them: a client told a shorter one would come back only to be denied (and maybe penalized)
        Decision blocked = penalties.deny(applied, checks, now);
        Decision cached = denials != null ? denials.deny(applied, checks, now, blocked) : null;
        if (cached != null) {
            // a remembered denial repeated before its retry time starts its rule's penalty (a running one, of the
            // rules in blocked, is not extended)
            cached = penalties.remember(checks, cached, now);
            forgetIfReset(checks, resetsBefore);
        }
        Decision known = blocked == null ? cached : cached == null ? blocked
                : Decision.of(java.util.stream.Stream.concat(blocked.outcomes().stream(), cached.outcomes().stream())
                        .toList(), List.of(), now);
        if (known != null) {
            return notify(request, known, DecisionListener.Event.DENIED_FROM_CACHE);
        }
        if (!breaker.tryAcquire()) {
            return notify(request, queued(request, onStoreFailure(applied, checks, now), queue),
                    DecisionListener.Event.STORE_FAILURE);
        }
        List<Outcome> outcomes;
        boolean[] chargedAtCheck = countsByOutcome(applied) ? new boolean[checks.size()] : null;
        try {
            if (orphanCount.get() > 0 && now >= orphansRetryAt) {
                releaseOrphans(now);        // best effort: never fails this request's own call
            }
            outcomes = evaluate(store, applied, checks, now, chargedAtCheck);
            breaker.onSuccess();
        } catch (RuntimeException e) {
            // any exception, not only StoreException: a store's bug must neither fail the request nor leave the
            // breaker's probe taken for good
            storeFailed(e);
            orphan(checks);
            return notify(request, queued(request, onStoreFailure(applied, checks, now), queue),
                    DecisionListener.Event.STORE_FAILURE);
        } catch (Error e) {
            breaker.onFailure(e);        // not left half-open with its probe taken for good
            throw e;
        }
        Decision decision = decide(applied, checks, outcomes, RuleOutcome.Source.STORE, chargedAtCheck, now);
        if (denials != null && !decision.allowed()) {
            denials.remember(checks, decision, now);
        }
        if (!decision.allowed()) {
            decision = penalties.remember(checks, decision, now);
            forgetIfReset(checks, resetsBefore);
        }
        // after the store's denials are remembered: a refusal to queue is the front door's, not the store's
        decision = queued(request, decision, queue);
        return notify(request, decision, decision.allowed()
                ? decision.shadowDenied() ? DecisionListener.Event.SHADOW_DENIED : DecisionListener.Event.ALLOWED
                : DecisionListener.Event.DENIED);
    }

    /**
     * One store call for all checks, unless a rule counts by outcome. Such a rule is charged when its response is
     * complete, not now, so its key is first looked at without consuming (cost 0). Then:
     * <ul>
     *   <li>each counted rule has room for the request's cost: one call asks the other rules at their cost (the
     *       counted ones at cost 0 again); none, when every rule counts by outcome;</li>
     *   <li>a counted rule has no room: one call asks each such rule at its cost (it denies, consuming nothing, and
     *       says when to retry) and every other rule at cost 0, so a denied attempt consumes from no other rule, even
     *       across the slots of a Redis Cluster, and a sliding log counting rejected attempts does not count it.</li>
     * </ul>
     *
     * <p>Should room appear at such a rule between the look and the call (the store's clock rolled its window over, or
     * its key was reset), its check passes and has consumed: {@code chargedAtCheck} marks it, so that {@link #charge}
     * does not take its cost a second time, and the other rules are then asked at their cost in one more call. If one
     * of them denies, the counted rule keeps that charge: the one case in which a denied request consumes.
     *
     * @param target the store asked: the configured one, or the local fallback while that one fails
     * @param chargedAtCheck null when no rule counts by outcome; else one flag per check, set here
     */
    private List<Outcome> evaluate(Store target, List<Rule> applied, List<Check> checks, long now,
            boolean[] chargedAtCheck) {
        if (chargedAtCheck == null) {
            return target.evaluate(checks, now, time);
        }
        int n = checks.size();
        List<Check> peeks = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            if (applied.get(i).countsByOutcome()) {
                peeks.add(checks.get(i).withCost(0));
            }
        }
        List<Outcome> seen = target.evaluate(peeks, now, time);
        boolean[] others = new boolean[n];      // the rules that do not count by outcome
        boolean[] noRoom = new boolean[n];      // the counted rules without room for the request's cost
        boolean anyOther = false;
        boolean anyNoRoom = false;
        for (int i = 0, k = 0; i < n; i++) {
            if (applied.get(i).countsByOutcome()) {
                noRoom[i] = seen.get(k++).remaining() < checks.get(i).cost();
                anyNoRoom |= noRoom[i];
            } else {
                others[i] = true;
                anyOther = true;
            }
        }
        if (!anyNoRoom) {
            return anyOther ? target.evaluate(atCost(checks, others), now, time) : seen;
        }
        List<Outcome> first = target.evaluate(atCost(checks, noRoom), now, time);
        boolean denied = false;
        for (int i = 0; i < n; i++) {
            denied |= !first.get(i).allowed() && !checks.get(i).shadow();
        }
        for (int i = 0; i < n; i++) {
            chargedAtCheck[i] = noRoom[i] && first.get(i).allowed() && !denied;
        }
        if (denied || !anyOther) {
            return first;
        }
        List<Outcome> second = target.evaluate(atCost(checks, others), now, time);
        Outcome[] out = new Outcome[n];
        for (int i = 0; i < n; i++) {
            out[i] = others[i] ? second.get(i) : first.get(i);
        }
        return Arrays.asList(out);
    }

    /** @return {@code checks}, those not marked in {@code charged} at cost 0 */
    private static List<Check> atCost(List<Check> checks, boolean[] charged) {
        List<Check> asked = new ArrayList<>(checks.size());
        for (int i = 0; i < checks.size(); i++) {
            asked.add(charged[i] ? checks.get(i) : checks.get(i).withCost(0));
        }
        return asked;
    }

    /**
     * Counting by outcome: charges the rules of {@code decision} that count responses with {@code status}. Call once
     * when the response is complete. Checked before and charged after, such a rule can be passed by requests that are
     * in flight together before any is charged: the limit then holds within the number in flight.
     */
    public void charge(RequestView request, Decision decision, int status) {
        if (!decision.allowed()) {
            return;             // a denied attempt is not counted (it never reached the application)
        }
        List<Check> charges = new ArrayList<>(1);
        List<Check> localCharges = List.of();
        for (RuleOutcome o : decision.outcomes()) {
            Rule rule = o.rule();
            if (!rule.countsByOutcome() || !rule.countStatuses().contains(status) || !o.outcome().allowed()
                    || o.chargedAtCheck()) {
                continue;
            }
            String key = rule.resolveKey(request);
            if (key == null) {
                if (rule.onMissingKey() == Rule.MissingKey.SKIP) {
                    continue;
                }
                key = Rule.ANONYMOUS_KEY;
            }
            Check c = new Check(rule.name(), key, o.policy(), rule.cost(), rule.shadow(), null);
            if (o.source() == RuleOutcome.Source.LOCAL_FALLBACK) {
                // checked in the local fallback (with this node's share as its policy): charged there too, where the
                // next check while the store is down looks
                localCharges = localCharges.isEmpty() ? new ArrayList<>(1) : localCharges;
                localCharges.add(c);
            } else {
                charges.add(c);
            }
        }
        long now = time.nowMicros();
        for (Check c : localCharges) {
            local.evaluate(List.of(c), now, time);
        }
        if (charges.isEmpty() || !breaker.tryAcquire()) {
            return;
        }
        try {
            for (Check c : charges) {
                // one at a time: one rule's full bucket must not void another's charge
                store.evaluate(List.of(c), now, time);
            }
            breaker.onSuccess();
        } catch (RuntimeException e) {
            storeFailed(e);
            warnThrottled("could not charge " + charges.size() + " rule(s) that count by outcome: "
                    + LogText.safe(e.getMessage()), e, now);
        } catch (Error e) {
            breaker.onFailure(e);        // as in check: not left half-open with its probe taken for good
            throw e;
        }
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

    /** @return the state of the circuit breaker around the store */
    public CircuitBreaker.State storeCircuit() {
        return breaker.state();
    }

    /** Keeps the leases {@code checks} asked for, which a failed call may have taken, for {@link #releaseOrphans}. */
    private void orphan(List<Check> checks) {
        for (int i = 0; i < checks.size(); i++) {
            Check c = checks.get(i);
            if (c.leaseId() != null) {
                keepOrphan(new Lease(c.rule(), c.key(), c.policy(), c.leaseId()));
            }
        }
    }

    /** Queues a lease for {@link #releaseOrphans}, unless {@value #MAX_ORPHANS} wait already (it then expires). */
    private void keepOrphan(Lease lease) {
        if (orphanCount.incrementAndGet() <= MAX_ORPHANS) {
            orphans.add(lease);
        } else {
            orphanCount.decrementAndGet();
        }
    }

    /**
     * Releases the leases of failed calls (releasing one the call never took changes nothing). Best effort: when that
     * fails (a Cluster master still down, say), they are kept and tried again a second later, and the request's own
     * call goes on; one lease that cannot be released must not stop every call.
     */
    private void releaseOrphans(long now) {
        List<Lease> batch = new ArrayList<>();
        for (Lease l; batch.size() < 1_000 && (l = orphans.poll()) != null; ) {
            batch.add(l);
        }
        orphanCount.addAndGet(-batch.size());
        if (batch.isEmpty()) {
            return;
        }
        try {
            store.release(batch, now);
            orphanFailureLogged = false;
        } catch (RuntimeException e) {
            if (!orphanFailureLogged) {           // once until a release succeeds: it is tried every second
                orphanFailureLogged = true;
                LOG.log(Level.WARNING, "could not release " + batch.size() + " concurrency lease(s) of failed store"
                        + " calls; trying again every second until the store takes them (or they expire): "
                        + LogText.summary(e));
            }
            orphansRetryAt = now + ORPHAN_RETRY_MICROS;
            batch.forEach(this::keepOrphan);
        }
    }

    /** @return the leases of failed store calls waiting to be released (tests) */
    int orphanedLeases() {
        return orphanCount.get();
    }

    /**
     * A store call failed: the breaker counts it; an exception other than {@link StoreException} is a bug, logged with
     * its stack trace at most once a minute (failures between successes never open the breaker, and would otherwise log
     * one trace per request).
     */
    private void storeFailed(RuntimeException e) {
        if (!(e instanceof StoreException)) {
            storeBugLines.log(LOG, Level.WARNING, time.nowMicros(),
                    "the rate-limit store failed unexpectedly; the rules' on-store-failure modes answer", e);
        }
        breaker.onFailure(e);
    }

    private static boolean countsByOutcome(List<Rule> applied) {
        for (int i = 0; i < applied.size(); i++) {
            if (applied.get(i).countsByOutcome()) {
                return true;
            }
        }
        return false;
    }

    /**
     * @param chargedAtCheck see {@link #evaluate}; null when no rule counts by outcome
     * @param now when the outcomes were decided
     */
    private Decision decide(List<Rule> applied, List<Check> checks, List<Outcome> outcomes, RuleOutcome.Source source,
            boolean[] chargedAtCheck, long now) {
        if (checks.size() == 1) {
            Check c = checks.get(0);
            Outcome o = outcomes.get(0);
            return Decision.of(List.of(new RuleOutcome(applied.get(0), c.policy(), o, source,
                            chargedAtCheck != null && chargedAtCheck[0])),
                    c.leaseId() != null && o.allowed() ? List.of(new Lease(c.rule(), c.key(), c.policy(), c.leaseId()))
                            : List.of(), now);
        }
        List<RuleOutcome> results = new ArrayList<>(checks.size());
        List<Lease> leases = new ArrayList<>(1);
        for (int i = 0; i < checks.size(); i++) {
            Check c = checks.get(i);
            Outcome o = outcomes.get(i);
            results.add(new RuleOutcome(applied.get(i), c.policy(), o, source, chargedAtCheck != null && chargedAtCheck[i]));
            if (c.leaseId() != null && o.allowed()) {
                leases.add(new Lease(c.rule(), c.key(), c.policy(), c.leaseId()));
            }
        }
        return Decision.of(results, leases, now);
    }

    /** Each rule's failure mode: allow, deny (503), or a local limit sized to this node's share. */
    private Decision onStoreFailure(List<Rule> applied, List<Check> checks, long now) {
        List<Integer> localIndexes = new ArrayList<>();
        List<Rule> localRules = new ArrayList<>();
        List<Check> localChecks = new ArrayList<>();
        for (int i = 0; i < checks.size(); i++) {
            if (applied.get(i).onStoreFailure() == Rule.FailureMode.LOCAL) {
                localIndexes.add(i);
                localRules.add(applied.get(i));
                localChecks.add(localShare(checks.get(i)));
            }
        }
        // a rule that counts by outcome is looked at, not charged, here as in the store: charge() counts its response
        boolean[] localCharged = countsByOutcome(localRules) ? new boolean[localChecks.size()] : null;
        List<Outcome> localOutcomes = localChecks.isEmpty() ? List.of()
                : evaluate(local, localRules, localChecks, now, localCharged);
        List<RuleOutcome> results = new ArrayList<>(checks.size());
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < checks.size(); i++) {
            Rule rule = applied.get(i);
            Check c = checks.get(i);
            long limit = c.policy().limit();
            int li = localIndexes.indexOf(i);
            RuleOutcome r = switch (rule.onStoreFailure()) {
                case ALLOW -> new RuleOutcome(rule, c.policy(), Outcome.allow(limit, limit, 0), RuleOutcome.Source.FAILURE_ALLOWED);
                case DENY -> new RuleOutcome(rule, c.policy(), Outcome.deny(limit, 0, 0, STORE_RETRY_MICROS),
                        RuleOutcome.Source.FAILURE_DENIED);
                case LOCAL -> new RuleOutcome(rule, localChecks.get(li).policy(), localOutcomes.get(li),
                        RuleOutcome.Source.LOCAL_FALLBACK, localCharged != null && localCharged[li]);
            };
            if (li >= 0 && c.leaseId() != null && r.outcome().allowed()) {
                leases.add(new Lease(c.rule(), c.key(), localChecks.get(li).policy(), c.leaseId()));
            }
            results.add(r);
        }
        return Decision.of(results, leases, now);
    }

    /** Retry-after sent with a 503 while the store is down and a rule denies meanwhile. */
    static final long STORE_RETRY_MICROS = 1_000_000;

    private Check localShare(Check c) {
        Policy p = c.policy();
        long share = Math.max(1, p.limit() / nodeCount);
        long burst = p.burst() == 0 ? 0 : Math.max(1, p.burst() / nodeCount);
        // the share's interval grows when limit / nodeCount rounds down (limit 3 on 2 nodes: a share of 1, whose interval
        // is three times as long), and with it the span burst x interval, which Policy bounds: kept within that bound
        // rather than failing the request
        burst = Math.min(burst, Policy.MAX_SPAN_MICROS / Math.max(1, p.periodMicros() / share));
        Policy local = new Policy(p.algorithm(), share, p.periodMicros(), burst,
                p.minIntervalMicros(), p.countRejected(), p.warmupMicros(), p.coldFactor(), p.leaseTimeoutMicros(),
                p.maxWaitMicros(), p.delayThreshold(), p.staggered(), p.penaltyMicros());
        return new Check(c.rule(), c.key(), local, c.cost(), c.shadow(), c.leaseId());
    }

    /**
     * Releases the concurrency leases a decision holds: call when the response completes, on every path.
     * A failure to reach the store is logged, and the leases are kept (at most {@value #MAX_ORPHANS} with those of
     * failed calls) and released before a later store call, so that a blip of the store does not hold a client's
     * capacity until the lease timeout; past that bound a lease expires on its own.
     */
    public void release(Decision decision) {
        if (decision.leases().isEmpty()) {
            return;
        }
        long now = time.nowMicros();
        boolean fromLocal = decision.outcomes().stream().anyMatch(o -> o.source() == RuleOutcome.Source.LOCAL_FALLBACK);
        if (!fromLocal && breaker.state() == CircuitBreaker.State.OPEN) {
            // the store is known to be down: a call would only wait for its timeout on the request's thread
            decision.leases().forEach(this::keepOrphan);        // released before a later store call
            return;
        }
        try {
            (fromLocal ? local : store).release(decision.leases(), now);
        } catch (RuntimeException e) {
            if (!fromLocal) {
                decision.leases().forEach(this::keepOrphan);     // released before a later store call
            }
            warnThrottled("could not release " + decision.leases().size()
                    + " concurrency lease(s); they are released before a later store call (or expire): "
                    + LogText.safe(e.getMessage()), e, now);
        }
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
     * The programmatic API, for limits outside HTTP such as calls to a third-party API:
     * {@code engine.tryAcquire("stripe", "acct-42", Policy.parse("100/1s"), 1)}. With a concurrency policy the call
     * takes a lease that nothing can release: it holds its units until it expires after the policy's {@code lease}
     * time (for work in flight, use a rule with {@link #check} and {@link #release(Decision)}).
     *
     * @param name names the limit (part of the stored key): one name per policy
     * @param key the partition
     * @param cost the weight, >= 0 (0 peeks)
     * @throws IllegalArgumentException when {@code name}, {@code key} or {@code policy} is null or {@code cost} is
     *     negative
     * @throws StoreException when the store cannot answer
     */
    public Outcome tryAcquire(String name, String key, Policy policy, long cost) {
        if (store instanceof MemoryStore memory && policy != null && policy.algorithm() != Algorithm.CONCURRENCY) {
            return memory.tryAcquire(name, key, policy, cost, time);     // no Check, no list; it checks the arguments
        }
        Check.requireValid(name, key, policy, cost);
        Check check = new Check(name, key, policy, cost, false,
                policy.algorithm() == Algorithm.CONCURRENCY ? newLeaseId() : null);
        return store.evaluate(List.of(check), time.nowMicros(), time).get(0);
    }

    /**
     * A handle on one named limit, for code that calls {@link #tryAcquire(String, String, Policy, long)} with the same
     * name and policy every time: {@code Limiter stripe = engine.limiter("stripe", Policy.parse("100/1s"));} then
     * {@code stripe.tryAcquire("acct-42")}. The handle holds no state of its own: every call is a call of
     * {@code tryAcquire(name, key, policy, cost)} on this engine (same store, same keys, same answers).
     *
     * @throws IllegalArgumentException when {@code name} or {@code policy} is null, or the policy is a concurrency
     *     policy (a handle has no way to release the leases it would take)
     */
    public Limiter limiter(String name, Policy policy) {
        if (name == null || policy == null) {
            throw new IllegalArgumentException("name and policy are required");
        }
        if (policy.algorithm() == Algorithm.CONCURRENCY) {
            throw new IllegalArgumentException("a Limiter cannot hold concurrency leases (it has no way to release "
                    + "them), got \"" + PolicyParser.format(policy) + "\" for limit \"" + name
                    + "\"; use a rule with Engine.check and Engine.release");
        }
        return new Limiter(this, name, policy);
    }

    /** The handle of {@link Limiter#key(String)}: on the memory store it keeps the key's cell. */
    KeyLimiter keyLimiter(Limiter limiter, String key) {
        MemoryStore.KeyHandle handle = store instanceof MemoryStore memory
                ? memory.handle(limiter.name(), key, limiter.policy(), time)
                : null;
        return new KeyLimiter(limiter, key, handle);
    }

    /**
     * {@link #tryAcquire(String, String, Policy, long)} under a name derived from the policy's notation
     * ({@code "api-" + notation}): calls with equal policies share a key's state, calls with different policies never
     * do.
     *
     * @throws IllegalArgumentException as {@link #tryAcquire(String, String, Policy, long)} does
     */
    public Outcome tryAcquire(String key, Policy policy, long cost) {
        if (policy == null) {
            throw new IllegalArgumentException("policy is required");
        }
        // the whole notation, not a hash of it: two policies whose notations hash alike would share one state
        return tryAcquire("api-" + PolicyParser.format(policy), key, policy, cost);
    }

    /**
     * Admin: a key's state under a rule, without consuming (a cost-0 check of the rule's policy; with tiers,
     * {@code tier} picks the policy, else the rule's default applies).
     *
     * @return the outcome a request of cost 0 would get now
     * @throws io.sluice.core.config.ConfigException when no rule has that name
     */
    public Outcome inspect(String ruleName, String key, String tier) {
        Rule rule = rules.stream().filter(r -> r.name().equals(ruleName)).findFirst()
                .orElseThrow(() -> new io.sluice.core.config.ConfigException("rule", ruleName, "expected the name of a rule"));
        return inspect(rule, key, tier);
    }

    /**
     * Admin: the state of {@code key} under {@code rule} (a rule of this engine or one passed to
     * {@link #check(RequestView, List)}), seen by a request of cost 0: nothing is consumed.
     *
     * @param tier a tier of the rule, as its selector gives it ({@link io.sluice.core.key.KeyResolvers#stored}), or null
     *     for the rule's own policy
     * @throws java.util.NoSuchElementException when the rule has no such tier
     */
    public Outcome inspect(Rule rule, String key, String tier) {
        Policy policy = rule.policy();
        if (tier != null) {
            policy = rule.tiers() == null ? null : rule.tiers().policies().get(tier);
            if (policy == null) {
                throw new java.util.NoSuchElementException("no tier named " + tier + " in rule " + rule.name());
            }
        }
        return store.evaluate(List.of(new Check(rule.name(), key, policy, 0, false,
                policy.algorithm() == Algorithm.CONCURRENCY ? newLeaseId() : null)), time.nowMicros(), time).get(0);
    }

    /**
     * A {@link #reset} ran while a decision was made: what it remembered may come from the state before the reset (a
     * denial the store gave just before), and is forgotten again. A reset counts itself before it forgets, so either
     * this sees it, or its own forgetting comes after what this remembered.
     */
    private void forgetIfReset(List<Check> checks, long resetsBefore) {
        if (resets.get() == resetsBefore) {
            return;
        }
        for (int i = 0; i < checks.size(); i++) {
            Check c = checks.get(i);
            if (denials != null) {
                denials.forget(c.rule(), c.key());
            }
            penalties.forget(c.rule(), c.key());
        }
    }

    /** Forgets a key's state under a rule (admin: reset or unblock). */
    public void reset(String rule, String key) {
        store.reset(rule, key);
        local.reset(rule, key);
        resets.incrementAndGet();       // before forgetting: see forgetIfReset
        if (denials != null) {
            denials.forget(rule, key);
        }
        penalties.forget(rule, key);
    }

    @Override
    public void close() {
        store.close();
    }

    private static String newLeaseId() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        return Long.toHexString(r.nextLong()) + Long.toHexString(r.nextLong());
    }

    /** Builds an {@link Engine}: rules, a store (default in memory), a time source (default the system clock). */
    public static final class Builder {
        private final List<Rule> rules = new ArrayList<>();
        private Store store;
        private TimeSource time = TimeSource.system();
        private int nodeCount = 1;
        private long localMaximumKeys = MemoryStore.DEFAULT_MAXIMUM_KEYS;
        private int failureThreshold = CircuitBreaker.DEFAULT_FAILURE_THRESHOLD;
        private long coolDownMicros = CircuitBreaker.DEFAULT_COOL_DOWN_MICROS;
        private int denialCacheSize = DenialCache.DEFAULT_SIZE;
        private final List<DecisionListener> listeners = new ArrayList<>();

        Builder() {}

        /**
         * The circuit breaker around the store: after {@code failures} consecutive failures (default
         * {@value CircuitBreaker#DEFAULT_FAILURE_THRESHOLD}) the store is not called for {@code coolDown} (default
         * half a second); then one probe at a time goes through until one succeeds.
         */
        public Builder circuitBreaker(int failures, java.time.Duration coolDown) {
            this.failureThreshold = failures;
            this.coolDownMicros = coolDown.toNanos() / 1_000;
            return this;
        }

        /**
         * How many denied keys are remembered locally and denied until their retry time without a store call (default
         * {@value DenialCache#DEFAULT_SIZE}; 0 turns the cache off). Applies only where it is exact: see {@link DenialCache}.
         */
        public Builder denialCacheSize(int size) {
            if (size < 0) {
                throw new io.sluice.core.config.ConfigException("denial-cache-size", Integer.toString(size), "expected >= 0");
            }
            this.denialCacheSize = size;
            return this;
        }

        /** Adds a listener that sees every decision of {@link Engine#check}. */
        public Builder listener(DecisionListener listener) {
            listeners.add(required(listener, "listener"));
            return this;
        }

        public Builder rule(Rule rule) {
            rules.add(required(rule, "rule"));
            return this;
        }

        public Builder rules(List<Rule> all) {
            for (Rule rule : required(all, "rules")) {
                rule(rule);
            }
            return this;
        }

        public Builder store(Store s) {
            this.store = s;
            return this;
        }

        public Builder timeSource(TimeSource t) {
            this.time = required(t, "timeSource");
            return this;
        }

        /** @throws IllegalArgumentException naming {@code argument} when {@code value} is null: at once, not at use */
        private static <T> T required(T value, String argument) {
            if (value == null) {
                throw new IllegalArgumentException(argument + " is required");
            }
            return value;
        }

        /** How many nodes share the limits: sizes the local fallback ({@code limit / nodeCount}). Default 1. */
        public Builder nodeCount(int n) {
            if (n < 1) {
                throw new io.sluice.core.config.ConfigException("node-count", Integer.toString(n), "expected at least 1");
            }
            this.nodeCount = n;
            return this;
        }

        /**
         * The most keys the local fallback tracks (rules with {@code on-store-failure: local}, while the store is down;
         * default {@value MemoryStore#DEFAULT_MAXIMUM_KEYS}); the front door gives it {@code max-keys}.
         */
        public Builder localMaximumKeys(long max) {
            MemoryStore.builder().maximumKeys(max);     // the same check and message as the memory store's
            this.localMaximumKeys = max;
            return this;
        }

        public Engine build() {
            long names = rules.stream().map(Rule::name).distinct().count();
            if (names != rules.size()) {
                throw new io.sluice.core.config.ConfigException("rules: two rules share a name; names must be unique");
            }
            return new Engine(this);
        }
    }
}
