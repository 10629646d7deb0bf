package io.sluice.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.core.Algorithm;
import io.sluice.core.Engine;
import io.sluice.core.RequestView;
import io.sluice.core.Rule;
import io.sluice.core.config.PolicyParser;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.testing.ManualTimeSource;
import org.junit.jupiter.api.Test;

class MicrometerMetricsTest {

    @Test
    void countsDecisionsByRuleAndOutcomeWithoutKeys() {
        ManualTimeSource time = new ManualTimeSource();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        MicrometerMetrics metrics = new MicrometerMetrics(registry);
        Engine engine = Engine.builder().timeSource(time)
                .store(metrics.instrument(MemoryStore.builder().timeSource(time).build()))
                .rule(Rule.builder("per-ip").policy(PolicyParser.parse("limit", "10/1m", Algorithm.FIXED_WINDOW))
                        .key(RequestView::remoteAddress).build())
                .listener(metrics)
                .build();
        metrics.bindCircuit(engine);
        RequestView request = RequestView.builder("GET", "/").remoteAddress("203.0.113.9").build();

        for (int i = 0; i < 12; i++) {
            engine.check(request);
        }

        assertThat(registry.counter("sluice.decisions", "rule", "per-ip", "outcome", "allowed").count()).isEqualTo(8);
        assertThat(registry.counter("sluice.decisions", "rule", "per-ip", "outcome", "near_limit").count()).isEqualTo(2);
        assertThat(registry.counter("sluice.decisions", "rule", "per-ip", "outcome", "denied").count()).as("one from the store, one from the denial cache").isEqualTo(2);
        assertThat(registry.counter("sluice.denial.cache.hits").count()).isEqualTo(1);
        assertThat(registry.timer("sluice.store.latency").count()).isEqualTo(11);
        assertThat(registry.get("sluice.store.circuit").gauge().value()).isZero();
        assertThat(registry.getMeters()).flatExtracting(m -> m.getId().getTags())
                .noneMatch(tag -> tag.getValue().contains("203.0.113.9"));
        assertThat(registry.getMeters()).extracting(Meter::getId).isNotEmpty();
    }
}
