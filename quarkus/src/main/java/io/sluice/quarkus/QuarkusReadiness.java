package io.sluice.quarkus;

import io.sluice.cdi.internal.SluiceReadiness;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.Readiness;

/**
 * {@link SluiceReadiness}, Sluice's readiness check ({@code sluice} under {@code /q/health/ready}), as a bean of ArC,
 * for the reason {@link QuarkusSluiceBeans} gives. SmallRye Health keeps it; without SmallRye Health nothing injects or
 * looks it up, so ArC removes it as unused and never loads it.
 */
@Readiness
@ApplicationScoped
public class QuarkusReadiness extends SluiceReadiness {}
