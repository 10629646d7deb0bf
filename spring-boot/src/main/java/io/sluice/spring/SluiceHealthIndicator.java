package io.sluice.spring;

import io.sluice.core.StoreHealth;
import io.sluice.http.FrontDoor;
import io.sluice.http.StoreHealthReport;
import java.util.List;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * Sluice's health indicator, {@code sluice} under {@code /actuator/health}: whether the store answers, and while it
 * fails since when and which rules answer by which failure mode ({@link StoreHealthReport}: UP unless
 * {@code sluice.readiness-on-store-failure=down}). Add it to the readiness group for Kubernetes probes:
 * {@code management.endpoint.health.group.readiness.include=readinessState,sluice}.
 */
public final class SluiceHealthIndicator implements HealthIndicator {

    private final FrontDoor door;
    private final StoreHealthReport status;

    SluiceHealthIndicator(FrontDoor door, StoreHealthReport status) {
        this.door = door;
        this.status = status;
    }

    @Override
    public Health health() {
        StoreHealth health = door.engine().health();
        return (status.up(List.of(health)) ? Health.up() : Health.down()).withDetails(status.data(List.of(health))).build();
    }
}
