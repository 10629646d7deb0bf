package io.sluice.spring;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.core.DecisionListener;
import io.sluice.core.Engine;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.store.Store;
import io.sluice.micrometer.MicrometerMetrics;

/** {@link SluiceMetrics} in the application's {@link MeterRegistry}: the one class of the starter naming Micrometer. */
final class MicrometerBinding implements SluiceMetrics {

    private final MicrometerMetrics metrics;

    MicrometerBinding(MeterRegistry registry) {
        this.metrics = new MicrometerMetrics(registry);
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
