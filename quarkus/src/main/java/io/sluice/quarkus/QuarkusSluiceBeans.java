package io.sluice.quarkus;

import io.sluice.cdi.internal.SluiceBeans;
import io.sluice.core.Engine;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.Produces;

/**
 * {@link SluiceBeans} as a bean of ArC. Where CDI runs portable extensions, {@code SluiceExtension} adds it; ArC runs
 * none, and takes no bean from {@code sluice-cdi} (a jar with a portable extension and no {@code beans.xml} is no bean
 * archive in CDI Lite), so this jar declares it: the same beans (the produced configuration, store, Jedis client, key
 * resolvers, clock and {@code MeterRegistry}, the {@code RateLimitedEvent}s), found by its annotation in this jar's
 * Jandex index. Producer methods are not inherited, so the {@link Engine} producer is declared again.
 */
@ApplicationScoped
public class QuarkusSluiceBeans extends SluiceBeans {

    @Override
    @Produces
    @Dependent
    protected Engine engine() {
        return super.engine();
    }
}
