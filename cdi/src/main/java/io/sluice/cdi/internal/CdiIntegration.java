package io.sluice.cdi.internal;

import io.sluice.core.DecisionListener;
import io.sluice.http.FrontDoor;
import io.sluice.core.key.KeyResolver;
import io.sluice.http.SluiceConfig;
import io.sluice.core.store.Store;
import io.sluice.core.time.TimeSource;
import java.util.List;
import java.util.Map;

/**
 * What a CDI application provides to Sluice's front doors: its {@code @Produces} configuration, store, key
 * resolvers and Micrometer {@code MeterRegistry}, and the {@link io.sluice.cdi.RateLimitedEvent} it observes. Both front doors ask {@link #find()} at start-up.
 *
 * <p>This interface names no CDI type, so a front door can refer to it on a plain servlet container: {@link #find()}
 * loads the one class that touches CDI ({@code CdiLookup}) only after checking that
 * {@code jakarta.enterprise.inject.spi.CDI} can be loaded, and returns null otherwise or when no container runs.
 */
public interface CdiIntegration {

    /** The CDI class whose presence is checked before anything else of CDI is touched: {@value}. */
    String CDI_CLASS = "jakarta.enterprise.inject.spi.CDI";

    /**
     * @return the front door built from the application's produced {@link io.sluice.http.SluiceConfig}, shared
     *     by both front doors and by {@code @Inject Engine}; null when the application produces none (each front door
     *     then reads its own parameters). Closed by CDI when the application stops: front doors must not close it.
     */
    FrontDoor sharedFrontDoor();

    /** @return the {@link Store} the application produces, or null */
    Store store();

    /** @return the application's {@code @Named} {@link KeyResolver} beans by name, possibly empty */
    Map<String, KeyResolver> keyResolvers();

    /** @return a listener that fires a {@link io.sluice.cdi.RateLimitedEvent} for every denied request */
    DecisionListener events();

    /**
     * Opens a front door of its own for a front door that does not share {@link #sharedFrontDoor()}: deciding in the
     * produced {@link #store()}, firing {@link #events()}, and, when Micrometer is on the class path and the
     * application produces a {@code MeterRegistry}, publishing its metrics there.
     *
     * @throws io.sluice.core.config.ConfigException when the application produces more than one store or registry
     */
    FrontDoor open(SluiceConfig config, TimeSource time);

    /**
     * @return {@code config}'s {@link SluiceConfig#description(Store)} with the produced store, and a line
     *     {@code metrics = micrometer (CDI MeterRegistry)} when decisions are published to a produced registry
     */
    List<String> description(SluiceConfig config);

    /**
     * @return the application's integration, or null when CDI is not on the class path, no container is running, or
     *     Sluice's extension is not registered in it
     */
    static CdiIntegration find() {
        try {
            Class.forName(CDI_CLASS, false, CdiIntegration.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError absent) {
            return null;
        }
        return CdiLookup.find();
    }
}
