package io.sluice.quarkus.health;

import io.sluice.cdi.internal.SluiceReadiness;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.Readiness;

/**
 * {@link SluiceReadiness}, Sluice's readiness check ({@code sluice} under {@code /q/health/ready}), as a bean of ArC:
 * ArC takes no bean from {@code sluice-cdi}, a jar with a portable extension and no {@code beans.xml}
 * ({@code io.sluice.quarkus.QuarkusSluiceBeans} says more). In a jar of its own, next to {@code quarkus-smallrye-health}:
 * ArC keeps a bean whose class it finds in an index even when nothing uses it, and loading this one without the
 * MicroProfile Health API stops start-up.
 */
@Readiness
@ApplicationScoped
public class QuarkusReadiness extends SluiceReadiness {}
