package io.sluice.core;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Policy;
import io.sluice.core.policy.Outcome;
import io.sluice.core.request.RequestView;
import io.sluice.core.policy.PolicyParser;
import io.sluice.core.config.ConfigException;
import io.sluice.core.key.KeyResolvers;
import io.sluice.core.store.CircuitBreaker;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.store.Store;
import io.sluice.core.store.StoreException;
import io.sluice.core.time.TimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

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
 *
 * <p>Building an engine never waits on its store, whatever state the store is in: what needs the store (the shared
 * settings in it, the fleet's subscription) is started on threads of the engine's own, and its first answers wait for
 * it while it is under way, within the store's timeout (see {@link SharedSide}). With the store down at start-up the
 * engine answers at once, by each rule's failure mode, and catches up when the store is back.
 *
 * <p>The engine is the public face of a few package-private parts: {@link RequestDecider} decides requests,
 * {@link StoreGuard} guards the store (circuit breaker, failure modes, local fallback, leases of failed calls),
 * {@link KnownDenials} remembers denials (denial cache, penalty box), {@link OutcomeCounting} counts by outcome,
 * {@link ProgrammaticLimits} serves {@link #tryAcquire(String, String, Policy, long)}, {@link Limiter} and
 * {@link KeyLimiter}, and {@link SharedSide} faces the other nodes (shared settings, {@link Operations}, fleet).
 */
public final class Engine implements AutoCloseable {

    private final List<Rule> rules;
    private final TimeSource time;
    private final StoreGuard guard;
    private final KnownDenials denials;
    /** Shared settings, operations, overrides, the watcher of other nodes' changes, and the fleet. */
    private final SharedSide shared;
    private final RequestDecider decider;
    private final OutcomeCounting counting;
    private final AdaptiveLimits adaptive;
    private final HoldTimes holds;
    private final ProgrammaticLimits api;

    private Engine(Builder b) {
        this.rules = List.copyOf(b.rules);
        this.time = b.time;
        Store store = b.store != null ? b.store : MemoryStore.builder().timeSource(b.time).build();
        this.guard = new StoreGuard(store, time, b.nodeCount, b.localMaximumKeys, b.failureThreshold,
                b.coolDownMicros, b.rulesInForce != null ? b.rulesInForce : this::rules);
        this.denials = new KnownDenials(b.denialCacheSize, time);
        this.shared = new SharedSide(store, this, time, denials, guard, b.settingsInterval);
        this.adaptive = new AdaptiveLimits(store.shared());
        this.holds = new HoldTimes();
        this.decider = new RequestDecider(time, guard, denials, shared, adaptive, holds, b.listeners);
        this.counting = new OutcomeCounting(guard, time, denials);
        this.api = new ProgrammaticLimits(store, time, guard, denials, shared);
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
     * {@link #check(RequestView, List)}, with the caller's last word ({@link QueueGate#admit}) on a decision that
     * admits the request after a delay (queue mode, {@code max-wait}). The listeners see the decision it answers: a
     * refusal is reported once, as the denial the client gets.
     *
     * @param queue asked about each decision that is allowed with {@link Decision#delayMicros()} &gt; 0, and about no
     *     other; null queues every such request
     * @throws IllegalStateException when {@code queue} answers an allowed decision other than the one it was asked
     *     about (see {@link QueueGate#admit})
     */
    public Decision check(RequestView request, List<Rule> candidates, QueueGate queue) {
        return decider.check(request, candidates, queue);
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
     * Counting by outcome: charges the rules of {@code decision} that count responses with {@code status}. Call once
     * when the response is complete. Checked before and charged after, such a rule can be passed by requests that are
     * in flight together before any is charged: the limit then holds within the number in flight.
     */
    public void charge(RequestView request, Decision decision, int status) {
        counting.charge(request, decision, status);
    }

    /**
     * @return what leased permits did on this node since it started (see {@link LeaseCounts}); all zero unless the
     *     store is shared (Redis) and a rule leases
     */
    public LeaseCounts leaseCounts() {
        return guard.leaseCounts();
    }

    /** @return the state of the circuit breaker around the store */
    public CircuitBreaker.State storeCircuit() {
        return guard.state();
    }

    /**
     * @return whether the store answers, and while it fails, since when and which rules answer by which failure mode:
     *     what the engine logs (one ERROR line as it begins, one INFO line as it ends) and every view shows
     */
    public StoreHealth health() {
        return guard.health();
    }

    /** @return the leases of failed store calls waiting to be released (tests) */
    int orphanedLeases() {
        return guard.orphanedLeases();
    }

    /**
     * Releases the concurrency leases a decision holds: call when the response completes, on every path. A failure to
     * reach the store is logged, and the leases are kept (at most {@value OrphanedLeases#MAX_ORPHANS} with those of
     * failed calls) and released before a later store call, so that a blip of the store does not hold a client's
     * capacity until the lease timeout; past that bound a lease expires on its own.
     */
    public void release(Decision decision) {
        release(decision, 0);
    }

    /**
     * {@link #release(Decision)}, with the response's status: an adaptive concurrency limit
     * ({@link Algorithm#ADAPTIVE_CONCURRENCY}) learns from it. The time since the decision is a latency sample, and a
     * status of 500 or more (an exception, a timeout: pass 500) a failure, which shrinks the limit.
     *
     * @param status the response's status; 0 when unknown (a latency sample, not a failure)
     */
    public void release(Decision decision, int status) {
        guard.release(decision);
        if (!decision.leases().isEmpty()) {         // how long its leases were held, for both to learn from
            long held = Math.max(0, time.nowMicros() - decision.atMicros() - decision.delayMicros());
            adaptive.completed(decision, status, held);
            holds.completed(decision, held);
        }
    }

    /**
     * @return the current adaptive concurrency limit of {@code rule} for {@code key} on this node (critical requests
     *     may use all of it, the others all but its reserve), or -1 when this node has none for them (not an adaptive
     *     rule, or no request of that key yet)
     */
    public long adaptiveLimit(String rule, String key) {
        return adaptive.limit(rule, key);
    }

    /**
     * @return the least current adaptive concurrency limit of {@code rule} over its keys on this node (with a single
     *     key, {@code key: global}, the limit), or -1 when it has none yet: what metrics publish, without keys
     */
    public long adaptiveLimit(String rule) {
        return adaptive.least(rule);
    }

    /**
     * The programmatic API, for limits outside HTTP such as calls to a third-party API:
     * {@code engine.tryAcquire("stripe", "acct-42", Policy.parse("100/1s"), 1)}. With a concurrency policy the call
     * takes a lease that nothing can release: it holds its units until it expires after the policy's {@code lease}
     * time (for work in flight, use a rule with {@link #check} and {@link #release(Decision)}).
     *
     * <p>It decides as a request is decided: through the denial cache ({@link Builder#denialCacheSize}), a policy's
     * {@code penalty} and the circuit breaker. While the store cannot answer (unreachable, or the circuit open),
     * {@link Rule.FailureMode#ALLOW} answers: allowed, the whole limit as remaining; no {@link StoreException} reaches
     * the caller (for another mode, {@link #limiter(String, Policy, Rule.FailureMode)}). No {@link DecisionListener}
     * is called.
     *
     * @param name names the limit (part of the stored key): one name per policy
     * @param key the partition
     * @param cost the weight, >= 0 (0 peeks)
     * @throws IllegalArgumentException when {@code name}, {@code key} or {@code policy} is null or {@code cost} is
     *     negative
     */
    public Outcome tryAcquire(String name, String key, Policy policy, long cost) {
        api.named(name, policy);
        return api.tryAcquire(name, key, policy, cost, ProgrammaticLimits.DEFAULT_ON_STORE_FAILURE);
    }

    /**
     * A {@link Limiter handle} on one named limit: each of its calls is {@code tryAcquire(name, key, policy, cost)} on
     * this engine ({@link #tryAcquire(String, String, Policy, long)}), and it allows while the store cannot answer.
     *
     * @throws IllegalArgumentException when {@code name} or {@code policy} is null, or the policy is a concurrency
     *     policy (a handle has no way to release the leases it would take)
     */
    public Limiter limiter(String name, Policy policy) {
        return limiter(name, policy, ProgrammaticLimits.DEFAULT_ON_STORE_FAILURE);
    }

    /**
     * {@link #limiter(String, Policy)}, with what answers while the store cannot (unreachable, or the circuit breaker
     * open), as a rule's {@code on-store-failure} says: {@link Rule.FailureMode#ALLOW} (the default of
     * {@link #limiter(String, Policy)}: allowed, the whole limit as remaining), {@link Rule.FailureMode#DENY} (denied,
     * retry after a second) or {@link Rule.FailureMode#LOCAL} (a local limit of this node's share, {@code limit /
     * nodeCount}: see {@link Builder#nodeCount}). Its {@link Limiter#key key handles} answer the same.
     *
     * @throws IllegalArgumentException as {@link #limiter(String, Policy)} does, and when {@code onStoreFailure} is
     *     null
     */
    public Limiter limiter(String name, Policy policy, Rule.FailureMode onStoreFailure) {
        return api.limiter(name, policy, onStoreFailure);
    }

    /**
     * {@link #tryAcquire(String, String, Policy, long)} under a name derived from the policy's notation
     * ({@code "api-" + notation}): calls with equal policies share a key's state, calls with different policies never
     * do. Otherwise the same call, the same guarded path and failure mode included.
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
     * Admin: a key's state under a rule, or under a limit of the programmatic API, without consuming (a cost-0 check
     * of its policy; with tiers, {@code tier} picks the policy, else the rule's default applies). A limit is known by
     * the name a {@link #limiter} or {@link #tryAcquire(String, String, Policy, long)} of this engine gave it (the
     * policy it was last decided by; up to {@value ProgrammaticLimits#MAX_NAMES} names), and has no tiers.
     *
     * @return the outcome a request of cost 0 would get now
     * @throws ConfigException when no rule, and no limit decided by this engine, has that name
     */
    public Outcome inspect(String ruleName, String key, String tier) {
        Rule rule = rules.stream().filter(r -> r.name().equals(ruleName)).findFirst().orElse(null);
        Outcome limit = rule != null || tier != null ? null : api.inspect(ruleName, key);
        if (rule == null && limit == null) {
            throw new ConfigException("rule", ruleName, "expected the name of a rule, or of a limit this engine has"
                    + " decided (limiter(name, policy), tryAcquire(name, key, policy, cost))"
                    + (tier == null ? "" : " without a tier"));
        }
        return rule != null ? inspect(rule, key, tier) : limit;
    }

    /**
     * Admin: the state of {@code key} under {@code rule} (a rule of this engine or one passed to
     * {@link #check(RequestView, List)}), seen by a request of cost 0: nothing is consumed. The store is asked
     * directly: when it cannot answer, its {@link StoreException} is thrown.
     *
     * @param tier a tier of the rule, as its selector gives it ({@link KeyResolvers#stored}), or null for the rule's
     *     own policy (or the key's override, when one holds)
     * @throws NoSuchElementException when the rule has no such tier
     */
    public Outcome inspect(Rule rule, String key, String tier) {
        return decider.inspect(rule, key, tier);
    }

    /**
     * Forgets a key's state under a rule (admin: reset or unblock): in the store, and on every node that shares it
     * (their penalties, remembered denials and leased blocks for the key, within about a second; see
     * {@link io.sluice.core.store.FleetChannel}).
     */
    public void reset(String rule, String key) {
        guard.reset(rule, key);
        denials.forget(rule, key);
        shared.reset(rule, key);
    }

    /**
     * @return the operator's handle ({@link Operations}: rules document, overrides, resets, audit trail); shared by the
     *     fleet on Redis, this node's on the memory store
     */
    public Operations operations() {
        return shared.operations();
    }

    /**
     * Lets go of everything this engine started on its store, without closing the store: for an engine over a store
     * its application owns and closes (a CDI-produced one), on undeploy. It stops the threads that read the settings
     * other nodes change ({@code sluice-shared-settings}) and that take leased permits ({@code sluice-leased-permits};
     * a take in flight is interrupted), and removes this engine's listener from the store's
     * {@link io.sluice.core.store.FleetChannel} ({@link io.sluice.core.store.FleetChannel#listen}), which then no
     * longer reaches the engine nor applies the other nodes' penalties, resets and settings changes to it. The store,
     * its connections and its channel (its subscription included) stay open. The threads are interrupted and waited
     * for, so that a container undeploying the application finds none of them left (a store call in flight that does
     * not heed the interrupt ends within the store's timeout; the wait is bounded). Idempotent. A detached engine
     * still decides requests, as a node that no longer hears the fleet: a rule that leases goes to the store for each
     * request once its blocks are spent, and the settings other nodes change are no longer read. {@link #close()} does
     * this too, then closes the store.
     */
    public void detach() {
        shared.stopWatching();
        guard.detach();
        shared.leaveFleet();
    }

    /** {@link #detach() Detaches} the engine from its store, then closes the store. */
    @Override
    public void close() {
        detach();
        guard.close();
    }

    /** @return a fresh id for a concurrency lease */
    static String newLeaseId() {
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
        private Duration settingsInterval = Duration.ofMillis(SettingsWatcher.DEFAULT_INTERVAL_MILLIS);
        private final List<DecisionListener> listeners = new ArrayList<>();
        private Supplier<List<Rule>> rulesInForce;

        Builder() {}

        /**
         * The rules in force when a caller passes its own to {@link Engine#check(RequestView, List)} (a front door's,
         * reloaded): named by failure mode when the store begins to fail ({@link Engine#health()}). Default: the
         * builder's.
         */
        public Builder rulesInForce(Supplier<List<Rule>> rules) {
            this.rulesInForce = required(rules, "rulesInForce");
            return this;
        }

        /**
         * The circuit breaker around the store: after {@code failures} consecutive failures (default
         * {@value CircuitBreaker#DEFAULT_FAILURE_THRESHOLD}) the store is not called for {@code coolDown} (default
         * half a second); then one probe at a time goes through until one succeeds.
         */
        public Builder circuitBreaker(int failures, Duration coolDown) {
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
                throw new ConfigException("denial-cache-size", Integer.toString(size), "expected >= 0");
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
                throw new ConfigException("node-count", Integer.toString(n), "expected at least 1");
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

        /**
         * How often a node checks the version of the settings the fleet shares (rules document, overrides) on a store
         * that shares them (Redis), in case it missed the message of a change: default 1 s; zero: messages only.
         */
        public Builder settingsInterval(Duration interval) {
            if (interval == null || interval.isNegative()) {
                throw new ConfigException("settings-interval", String.valueOf(interval), "expected a duration >= 0");
            }
            this.settingsInterval = interval;
            return this;
        }

        public Engine build() {
            long names = rules.stream().map(Rule::name).distinct().count();
            if (names != rules.size()) {
                throw new ConfigException("rules: two rules share a name; names must be unique");
            }
            return new Engine(this);
        }
    }
}
