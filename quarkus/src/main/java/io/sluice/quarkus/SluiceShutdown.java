package io.sluice.quarkus;

import io.quarkus.runtime.ShutdownEvent;
import io.sluice.jaxrs.RateLimitFeature;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.lang.System.Logger.Level;

/**
 * Closes the JAX-RS filter's own front door when Quarkus stops, at shutdown and before each dev-mode reload: its
 * engine's threads end and its Redis clients are closed, which JAX-RS, offering a feature no hook, leaves to the
 * application ({@link RateLimitFeature#close()}). Quarkus REST makes {@link RateLimitFeature}, a {@code @Provider}, a
 * singleton bean of ArC and configures the resources with that instance, so it is the one found here. A front door
 * shared with CDI (built from a produced {@code SluiceConfig}) is left to {@code SluiceBeans}, which closes it.
 */
@Singleton
public class SluiceShutdown {

    private static final System.Logger LOG = System.getLogger(RateLimitFeature.class.getName());

    @Inject
    Instance<RateLimitFeature> features;

    void stop(@Observes ShutdownEvent event) {
        if (features.isResolvable()) {
            long running = sluiceThreads();
            features.get().close();                      // waits for the engine's threads to end
            LOG.log(Level.INFO, "Sluice rate limiting (JAX-RS): stopped, its front door closed ("
                    + (running - sluiceThreads()) + " of Sluice's threads ended)");
        }
    }

    /** @return the live threads Sluice started (named {@code sluice-...}) */
    private static long sluiceThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith("sluice-")).count();
    }
}
