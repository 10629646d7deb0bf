package io.sluice.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.sluice.core.Decision;
import io.sluice.core.DecisionListener;
import io.sluice.core.Engine;
import io.sluice.core.policy.Outcome;
import io.sluice.core.request.RequestView;
import io.sluice.core.Rule;
import io.sluice.core.RuleOutcome;
import io.sluice.core.store.Check;
import io.sluice.core.store.DelegatingStore;
import io.sluice.core.store.Store;
import io.sluice.core.time.TimeSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Publishes Sluice's decisions to Micrometer. Loaded only when the application has Micrometer on its classpath;
 * tags carry rule names and outcomes, never keys.
 *
 * <ul>
 *   <li>{@code sluice.decisions} (counter; tags {@code rule}, {@code outcome} = allowed, near_limit, denied,
 *       shadow_denied, fallback): one per rule per decision; {@code near_limit} is allowed with at most
 *       {@value #NEAR_LIMIT_PERCENT}% of the limit remaining</li>
 *   <li>{@code sluice.denial.cache.hits} (counter): denials answered from the local cache, without a store call</li>
 *   <li>{@code sluice.store.failures} (counter; tags {@code rule}, {@code mode} = allow, deny, local): one per rule per
 *       decision answered by the rule's failure mode (the store failed, or its circuit is open)</li>
 *   <li>{@code sluice.store.latency} (timer): each store call, through {@link #instrument(Store)}</li>
 *   <li>{@code sluice.store.circuit} (gauge; 0 closed, 1 half-open, 2 open) and {@code sluice.store.up} (gauge; 1 the
 *       store answers, 0 it fails and the rules answer by their failure modes: {@link Engine#health()}), through
 *       {@link #bindCircuit(Engine)}</li>
 *   <li>{@code sluice.leased.decisions}, {@code sluice.leased.takes}, {@code sluice.leased.permits} (function
 *       counters): what leased permits did, through {@link #bindLeases(Engine)}</li>
 *   <li>{@code sluice.adaptive.limit} (gauge; tag {@code rule}): the current limit of each adaptive concurrency rule
 *       on this node (the least over its keys; NaN before its first request), through
 *       {@link #bindAdaptiveLimits(Engine)}</li>
 *   <li>{@code sluice.shared.version}, {@code sluice.shared.overrides} (gauges) and {@code sluice.shared.rejections}
 *       (function counter): the shared settings on this node, through {@link #bindSharedSettings(Engine)}</li>
 * </ul>
 *
 * <p>A rule the rules in force no longer have, after a reload of the rules file or a change of the shared rules
 * document, loses its {@code sluice.decisions} meters at that change (a listener of a {@code io.sluice.http.FrontDoor}:
 * {@link #onRulesChanged}); a rule that stays, its policy changed or not,
 * keeps them and counts on. A request decided under the removed rule just before the reload is not counted, so that it
 * does not register them again; a rule of that name added back later counts from zero.
 *
 * <pre>
 * MicrometerMetrics metrics = new MicrometerMetrics(registry);
 * Engine engine = Engine.builder().store(metrics.instrument(store)).listener(metrics)...build();
 * metrics.bindCircuit(engine);
 * </pre>
 */
public final class MicrometerMetrics implements DecisionListener {

    /** An allowed decision with at most this share of the limit left counts as near the limit: {@value}%. */
    public static final int NEAR_LIMIT_PERCENT = 10;

    private final MeterRegistry registry;
    private final Counter cacheHits;
    private final Timer storeLatency;
    /**
     * The rules reloads removed, by name, the very rule objects: a decision under one of them (made just before its
     * reload) is not counted, as it would register the meters removed again. Replaced whole by each reload that
     * changes it; empty (a read and nothing else per decision) until a reload removes a rule. Bounded by the rule
     * names ever configured.
     */
    private volatile Map<String, Rule> retired = Map.of();

    public MicrometerMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.cacheHits = Counter.builder("sluice.denial.cache.hits")
                .description("Denials answered from the local cache without a store call").register(registry);
        this.storeLatency = Timer.builder("sluice.store.latency").description("Store calls")
                .publishPercentiles(0.5, 0.99).register(registry);
    }

    @Override
    public void onDecision(RequestView request, Decision decision, Event event) {
        if (event == Event.DENIED_FROM_CACHE) {
            cacheHits.increment();
        }
        Map<String, Rule> removed = retired;
        for (RuleOutcome o : decision.outcomes()) {
            if (!removed.isEmpty() && removed.get(o.rule().name()) == o.rule()) {
                continue;
            }
            registry.counter("sluice.decisions", "rule", o.rule().name(), "outcome", outcome(o)).increment();
            if (o.source() != RuleOutcome.Source.STORE) {
                Counter.builder("sluice.store.failures").tags("rule", o.rule().name(), "mode", mode(o.source()))
                        .description("Decisions answered by a rule's failure mode: store down or circuit open")
                        .register(registry).increment();
            }
        }
        if (retired != removed) {
            removeRetiredMeters(decision);       // a reload removed a rule meanwhile: it may have been after the count
        }
    }

    /**
     * Removes the {@code sluice.decisions} meters of the rules the reloaded file no longer has, and counts no decision
     * made under them from now on; a rule that stays (its policy changed or not) keeps its meters. A name in force
     * again counts again (from zero).
     */
    @Override
    public synchronized void onRulesChanged(List<Rule> before, List<Rule> after) {
        Set<String> inForce = new HashSet<>();
        after.forEach(r -> inForce.add(r.name()));
        Map<String, Rule> next = new HashMap<>(retired);
        next.keySet().removeAll(inForce);
        List<String> removed = new ArrayList<>();
        for (Rule r : before) {
            if (!inForce.contains(r.name())) {
                next.put(r.name(), r);
                removed.add(r.name());
            }
        }
        retired = Map.copyOf(next);           // first: a decision that reads it from now on registers nothing again
        removed.forEach(this::removeMeters);
    }

    /** After a count that a reload may have overtaken: removes the meters of the rules of {@code decision} retired. */
    private void removeRetiredMeters(Decision decision) {
        Map<String, Rule> removed = retired;
        for (RuleOutcome o : decision.outcomes()) {
            if (removed.get(o.rule().name()) == o.rule()) {
                removeMeters(o.rule().name());
            }
        }
    }

    private void removeMeters(String rule) {
        for (String name : List.of("sluice.decisions", "sluice.store.failures")) {
            for (Meter m : registry.find(name).tag("rule", rule).meters()) {
                registry.remove(m);
            }
        }
    }

    /** @return the {@code mode} tag of an outcome a failure mode answered */
    private static String mode(RuleOutcome.Source source) {
        return switch (source) {
            case FAILURE_ALLOWED -> "allow";
            case FAILURE_DENIED -> "deny";
            default -> "local";
        };
    }

    private static String outcome(RuleOutcome o) {
        Outcome out = o.outcome();
        if (o.source() != RuleOutcome.Source.STORE) {
            return "fallback";
        }
        if (!out.allowed()) {
            return o.rule().shadow() ? "shadow_denied" : "denied";
        }
        return out.remaining() * 100 <= out.limit() * NEAR_LIMIT_PERCENT ? "near_limit" : "allowed";
    }

    /**
     * Publishes every gauge and counter of {@code engine}: {@link #bindCircuit}, {@link #bindLeases},
     * {@link #bindAdaptiveLimits} and {@link #bindSharedSettings}, as the CDI, Spring Boot and Quarkus integrations do.
     */
    public void bind(Engine engine) {
        bindCircuit(engine);
        bindLeases(engine);
        bindAdaptiveLimits(engine);
        bindSharedSettings(engine);
    }

    /** @return {@code store}, timing every call into {@code sluice.store.latency} */
    public Store instrument(Store store) {
        return new TimedStore(store, storeLatency);
    }

    /** A store whose evaluations are timed; everything else goes to the store as it is. */
    private static final class TimedStore extends DelegatingStore {
        private final Timer latency;

        TimedStore(Store store, Timer latency) {
            super(store);
            this.latency = latency;
        }

        @Override
        public List<Outcome> evaluate(List<Check> checks, long nowMicros) {
            long start = System.nanoTime();
            try {
                return store.evaluate(checks, nowMicros);
            } finally {
                latency.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
            }
        }

        @Override
        public List<Outcome> evaluate(List<Check> checks, long nowMicros, TimeSource clock) {
            long start = System.nanoTime();
            try {
                return store.evaluate(checks, nowMicros, clock);   // the store may reuse the clock read
            } finally {
                latency.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
            }
        }
    }

    /**
     * Publishes what leased permits did on the engine's node: {@code sluice.leased.decisions} (function counter; tag
     * {@code answered} = {@code lease}: checks of leasing rules answered from a block without a store call,
     * {@code store}: those the store answered), {@code sluice.leased.takes} (store calls that took a block),
     * {@code sluice.leased.permits} (tag {@code fate} = {@code taken}, {@code lapsed}: taken and never spent).
     */
    public void bindLeases(Engine engine) {
        FunctionCounter.builder("sluice.leased.decisions", engine, e -> e.leaseCounts().leasedDecisions())
                .tag("answered", "lease").description("Checks of leasing rules answered from a leased block")
                .register(registry);
        FunctionCounter.builder("sluice.leased.decisions", engine, e -> e.leaseCounts().storeDecisions())
                .tag("answered", "store").description("Checks of leasing rules the store answered")
                .register(registry);
        FunctionCounter.builder("sluice.leased.takes", engine, e -> e.leaseCounts().takes())
                .description("Store calls that took a block of permits").register(registry);
        FunctionCounter.builder("sluice.leased.permits", engine, e -> e.leaseCounts().permitsTaken())
                .tag("fate", "taken").description("Permits taken in blocks").register(registry);
        FunctionCounter.builder("sluice.leased.permits", engine, e -> e.leaseCounts().permitsLapsed())
                .tag("fate", "lapsed").description("Leased permits that ended unspent").register(registry);
    }

    /**
     * Publishes the current limit of each of the engine's adaptive concurrency rules as {@code sluice.adaptive.limit}
     * (tag {@code rule}): the least over its keys on this node, NaN before its first request.
     */
    public void bindAdaptiveLimits(Engine engine) {
        for (Rule rule : engine.rules()) {
            if (rule.policy().algorithm() == io.sluice.core.policy.Algorithm.ADAPTIVE_CONCURRENCY) {
                String name = rule.name();
                Gauge.builder("sluice.adaptive.limit", engine, e -> {
                    long l = e.adaptiveLimit(name);
                    return l < 0 ? Double.NaN : l;
                }).tag("rule", name).description("Current adaptive concurrency limit on this node")
                        .register(registry);
            }
        }
    }

    /**
     * Publishes where the engine's node stands with the settings the fleet shares ({@link Engine#operations()},
     * {@link io.sluice.core.Operations#status()}): {@code sluice.shared.version} (gauge: the version of the shared rules
     * document last put in force here, its removal being a version too; 0 until there was one; equal on every node
     * once they agree), {@code sluice.shared.overrides} (gauge: the overrides in
     * force here) and {@code sluice.shared.rejections} (function counter: the documents this node could not use since
     * it started, keeping its rules; alert on its increase, the node's admin status says why).
     */
    public void bindSharedSettings(Engine engine) {
        Gauge.builder("sluice.shared.version", engine, e -> e.operations().status().documentVersion())
                .description("Version of the shared rules document last put in force on this node (a removal too)")
                .register(registry);
        Gauge.builder("sluice.shared.overrides", engine, e -> e.operations().status().overrides())
                .description("Per-key overrides in force on this node").register(registry);
        FunctionCounter.builder("sluice.shared.rejections", engine, e -> e.operations().status().rejections())
                .description("Shared rules documents this node could not use, keeping its rules").register(registry);
    }

    /**
     * Publishes the engine's circuit state as {@code sluice.store.circuit} (0 closed, 1 half-open, 2 open), and whether
     * its store answers as {@code sluice.store.up}: 1, or 0 from the opening of the circuit until a call succeeds again,
     * while the rules answer by their failure modes ({@link Engine#health()}; alert on it).
     */
    public void bindCircuit(Engine engine) {
        Gauge.builder("sluice.store.up", engine, e -> e.health().up() ? 1 : 0)
                .description("Whether the store answers (1), or the rules answer by their failure modes (0)")
                .register(registry);
        Gauge.builder("sluice.store.circuit", engine, e -> switch (e.storeCircuit()) {
            case CLOSED -> 0;
            case HALF_OPEN -> 1;
            case OPEN -> 2;
        }).description("Circuit breaker around the store: 0 closed, 1 half-open, 2 open").register(registry);
    }

    @Override
    public String toString() {
        return "MicrometerMetrics[" + registry.getClass().getSimpleName().toLowerCase(Locale.ROOT) + "]";
    }
}
