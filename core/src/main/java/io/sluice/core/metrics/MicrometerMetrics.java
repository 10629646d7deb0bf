package io.sluice.core.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.sluice.core.Decision;
import io.sluice.core.DecisionListener;
import io.sluice.core.Engine;
import io.sluice.core.Outcome;
import io.sluice.core.RequestView;
import io.sluice.core.RuleOutcome;
import io.sluice.core.store.Check;
import io.sluice.core.store.Lease;
import io.sluice.core.store.Store;
import io.sluice.core.time.TimeSource;
import java.util.List;
import java.util.Locale;
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
 *   <li>{@code sluice.store.failures} (counter): decisions answered by failure modes (store down or circuit open)</li>
 *   <li>{@code sluice.store.latency} (timer): each store call, through {@link #instrument(Store)}</li>
 *   <li>{@code sluice.store.circuit} (gauge; 0 closed, 1 half-open, 2 open), through {@link #bindCircuit(Engine)}</li>
 * </ul>
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
    private final Counter storeFailures;
    private final Timer storeLatency;

    public MicrometerMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.cacheHits = Counter.builder("sluice.denial.cache.hits")
                .description("Denials answered from the local cache without a store call").register(registry);
        this.storeFailures = Counter.builder("sluice.store.failures")
                .description("Decisions answered by failure modes: store down or circuit open").register(registry);
        this.storeLatency = Timer.builder("sluice.store.latency").description("Store calls")
                .publishPercentiles(0.5, 0.99).register(registry);
    }

    @Override
    public void onDecision(RequestView request, Decision decision, Event event) {
        if (event == Event.DENIED_FROM_CACHE) {
            cacheHits.increment();
        } else if (event == Event.STORE_FAILURE) {
            storeFailures.increment();
        }
        for (RuleOutcome o : decision.outcomes()) {
            registry.counter("sluice.decisions", "rule", o.rule().name(), "outcome", outcome(o)).increment();
        }
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

    /** @return {@code store}, timing every call into {@code sluice.store.latency} */
    public Store instrument(Store store) {
        return new Store() {
            @Override
            public List<Outcome> evaluate(List<Check> checks, long nowMicros) {
                long start = System.nanoTime();
                try {
                    return store.evaluate(checks, nowMicros);
                } finally {
                    storeLatency.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
                }
            }

            @Override
            public List<Outcome> evaluate(List<Check> checks, long nowMicros, TimeSource clock) {
                long start = System.nanoTime();
                try {
                    return store.evaluate(checks, nowMicros, clock);   // the store may reuse the clock read
                } finally {
                    storeLatency.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
                }
            }

            @Override
            public void release(List<Lease> leases, long nowMicros) {
                store.release(leases, nowMicros);
            }

            @Override
            public void reset(String rule, String key) {
                store.reset(rule, key);
            }

            @Override
            public void close() {
                store.close();
            }
        };
    }

    /** Publishes the engine's circuit state as {@code sluice.store.circuit}: 0 closed, 1 half-open, 2 open. */
    public void bindCircuit(Engine engine) {
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
