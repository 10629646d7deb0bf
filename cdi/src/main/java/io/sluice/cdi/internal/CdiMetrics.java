package io.sluice.cdi.internal;

import io.sluice.core.DecisionListener;
import io.sluice.core.Engine;
import io.sluice.core.store.Store;
import jakarta.enterprise.inject.Instance;

/**
 * The metrics a front door publishes to the application's produced Micrometer {@code MeterRegistry}. Names no type of
 * Micrometer, an optional dependency: {@link #find} loads the one class that does ({@code MicrometerLookup}) only after
 * checking that {@value #MICROMETER_CLASS} can be loaded.
 */
interface CdiMetrics {

    /** The Micrometer class whose presence is checked before anything else of Micrometer is touched: {@value}. */
    String MICROMETER_CLASS = "io.micrometer.core.instrument.MeterRegistry";

    /** The line of the start-up log that says so: {@value}. */
    String DESCRIPTION = "metrics = micrometer (CDI MeterRegistry)";

    /** @return the listener that counts every decision, and removes the meters of rules a reload removed */
    DecisionListener listener();

    /**
     * @return {@code store} timing each call, for a store over the network; the {@link io.sluice.core.store.MemoryStore}
     *     itself, as the engine decides in it without a call on its fast paths, which a wrapper would hide
     */
    Store around(Store store);

    /** Publishes the engine's circuit state, what its leased permits did, and its shared settings. */
    void bind(Engine engine);

    /** @return whether Micrometer can be loaded */
    static boolean micrometerPresent() {
        try {
            Class.forName(MICROMETER_CLASS, false, CdiMetrics.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError absent) {
            return false;
        }
    }

    /**
     * @param beans the beans the application's container sees
     * @return the metrics of the application's one {@code @Default MeterRegistry}; null when Micrometer is absent or
     *     the application produces none
     * @throws io.sluice.core.config.ConfigException when it produces more than one
     */
    static CdiMetrics find(Instance<Object> beans) {
        return micrometerPresent() ? MicrometerLookup.find(beans) : null;
    }
}
