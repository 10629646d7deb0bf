package io.sluice.quarkus;

import io.quarkus.runtime.StartupEvent;
import io.sluice.cdi.internal.SluiceBeans;
import io.sluice.cdi.internal.StoreReadiness;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

/**
 * What {@code SluiceExtension} does where CDI runs portable extensions, done the ArC way. ArC runs none, and would
 * remove {@link SluiceBeans} ({@link QuarkusSluiceBeans}) as unused, since the front doors look it up
 * programmatically ({@code CDI.current()}), which ArC cannot see at build time; injected here, it stays. At start-up, when SmallRye Health is present, the readiness check's parameter
 * ({@code sluice.readiness-on-store-failure}) is checked, so a bad value stops start-up, naming it.
 */
@Singleton
public class SluiceStartup {

    /** Keeps the bean: the front doors find it through {@code CDI.current()} when Quarkus REST configures them. */
    @Inject
    SluiceBeans beans;

    void start(@Observes StartupEvent event) {
        if (StoreReadiness.healthPresent()) {
            StoreReadiness.configured();
        }
    }
}
