package io.sluice.http.spi;

import io.sluice.core.DecisionListener;
import io.sluice.core.key.KeyResolver;
import io.sluice.core.store.Store;
import io.sluice.core.time.TimeSource;
import io.sluice.http.FrontDoor;
import io.sluice.http.SluiceConfig;
import java.util.List;
import java.util.Map;

/**
 * What a running application framework provides to Sluice's front doors, such as CDI: its configuration, store, key
 * resolvers and metrics, and the events it observes. A front door asks {@link Integrations#integration()} at start-up
 * and, when there is one, uses it as below; without one it opens a front door of its own from its parameters.
 *
 * <p>Implemented by Sluice's runtime modules ({@code sluice-cdi}) and found through an {@link IntegrationProvider}.
 */
public interface RuntimeIntegration {

    /**
     * @return the front door built from the application's own {@link SluiceConfig} (such as a produced one), shared
     *     by every front door of the application; null when the application provides none (each front door then reads
     *     its own parameters). Closed by the integration when the application stops: front doors must not close it.
     */
    FrontDoor sharedFrontDoor();

    /** @return the {@link Store} the application provides, or null */
    Store store();

    /** @return the application's named {@link KeyResolver}s by name, possibly empty */
    Map<String, KeyResolver> keyResolvers();

    /** @return a listener that tells the application of decisions (such as an event per denied request) */
    DecisionListener events();

    /**
     * Opens a front door of its own for a front door that does not share {@link #sharedFrontDoor()}: deciding in the
     * provided {@link #store()}, telling {@link #events()}, and publishing metrics where the application has them.
     *
     * @throws io.sluice.core.config.ConfigException when what the application provides is ambiguous
     */
    FrontDoor open(SluiceConfig config, TimeSource time);

    /**
     * @return {@code config}'s {@link SluiceConfig#description(Store)} with the provided store, and a line for each
     *     thing the integration adds (such as metrics), for the start-up log
     */
    List<String> description(SluiceConfig config);
}
