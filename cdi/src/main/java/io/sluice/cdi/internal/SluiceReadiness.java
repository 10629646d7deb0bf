package io.sluice.cdi.internal;

import io.sluice.core.Engine;
import io.sluice.core.StoreHealth;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Optional;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Sluice's MicroProfile Health readiness check, named {@value #NAME}: whether the stores of the application's front
 * doors answer, and while one fails, since when and which rules answer by which failure mode ({@link StoreReadiness}:
 * UP unless configured otherwise). The one class that touches MicroProfile Health: {@link SluiceExtension} registers
 * it only when the API is on the class path, so an application without it never loads it. No liveness check: a
 * restart does not bring Redis back.
 */
@Readiness
@ApplicationScoped
public class SluiceReadiness implements HealthCheck {

    /** The check's name: {@value}. */
    public static final String NAME = "sluice";

    @Inject
    SluiceBeans beans;

    private StoreReadiness readiness;

    @PostConstruct
    void configure() {
        readiness = StoreReadiness.configured();
    }

    @Override
    public HealthCheckResponse call() {
        List<StoreHealth> stores = beans.engines().stream().map(Engine::health).toList();
        return new HealthCheckResponse(NAME, readiness.up(stores) ? HealthCheckResponse.Status.UP
                : HealthCheckResponse.Status.DOWN, Optional.of(readiness.data(stores)));
    }
}
