package io.sluice.spring;

import io.sluice.core.DecisionListener;
import io.sluice.core.Engine;
import io.sluice.core.store.Store;

/**
 * The metrics the front door publishes to the application's Micrometer {@code MeterRegistry}. Names no type of
 * Micrometer, an optional dependency: {@link SluiceAutoConfiguration} creates the one class that does
 * ({@link MicrometerBinding}) only when Micrometer and {@code sluice-micrometer} are on the class path.
 */
interface SluiceMetrics {

    /** The line of the start-up log that says so: {@value}. */
    String DESCRIPTION = "metrics = micrometer (the application's MeterRegistry)";

    /** @return the listener that counts every decision, and removes the meters of rules a reload removed */
    DecisionListener listener();

    /** @return {@code store} timing each call; the memory store itself, which the engine decides in without a call */
    Store around(Store store);

    /** Publishes the engine's circuit state, what its leased permits did, its adaptive limits and shared settings. */
    void bind(Engine engine);
}
