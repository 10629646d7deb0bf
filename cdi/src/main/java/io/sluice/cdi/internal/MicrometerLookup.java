package io.sluice.cdi.internal;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.core.DecisionListener;
import io.sluice.core.Engine;
import io.sluice.micrometer.MicrometerMetrics;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.store.Store;
import jakarta.enterprise.inject.Instance;

/** Finds the application's {@link MeterRegistry}; loaded only when Micrometer is on the class path. */
final class MicrometerLookup implements CdiMetrics {

    private final MicrometerMetrics metrics;

    private MicrometerLookup(MicrometerMetrics metrics) {
        this.metrics = metrics;
    }

    static CdiMetrics find(Instance<Object> beans) {
        MeterRegistry registry = SluiceBeans.one(SluiceBeans.visible(beans.select(MeterRegistry.class),
                MeterRegistry.class), MeterRegistry.class);
        return registry == null ? null : new MicrometerLookup(new MicrometerMetrics(registry));
    }

    @Override
    public DecisionListener listener() {
        return metrics;
    }

    @Override
    public Store around(Store store) {
        return store instanceof MemoryStore ? store : metrics.instrument(store);
    }

    @Override
    public void bind(Engine engine) {
        metrics.bind(engine);
    }
}
