package io.sluice.cdi.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.Engine;
import io.sluice.core.config.ConfigException;
import io.sluice.core.request.RequestView;
import io.sluice.core.store.Check;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.store.Store;
import io.sluice.core.store.StoreException;
import io.sluice.core.testing.ForwardingStore;
import io.sluice.core.testing.ManualTimeSource;
import io.sluice.core.time.TimeSource;
import io.sluice.http.FrontDoor;
import io.sluice.http.Parameters;
import io.sluice.http.SluiceConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;

/**
 * Sluice's MicroProfile Health readiness check in a real CDI container (Weld SE with exactly the test's beans and the
 * extensions of the class path's service files, Sluice's among them): it reads the engine's store health, and stays
 * UP while the rules answer by their failure modes unless configured DOWN.
 */
class SluiceReadinessTest {

    /** A real memory store behind a switch that makes it fail like an unreachable Redis. */
    public static final class SwitchableStore extends ForwardingStore {
        volatile boolean down;

        SwitchableStore(TimeSource time) {
            super(MemoryStore.builder().timeSource(time).build());
        }

        @Override
        protected void beforeEvaluate(List<Check> checks) {
            if (down) {
                throw new StoreException("connection refused");
            }
        }
    }

    /** The application: its configuration (rule "login", denying while the store fails), store and clock. */
    @ApplicationScoped
    public static class Application {
        private final ManualTimeSource time = new ManualTimeSource();

        @Produces
        @Singleton
        SluiceConfig config() {
            return SluiceConfig.load(Parameters.of("sluice", name -> null, name -> null,
                    Map.of("limit", "100/1m", "name", "login", "on-store-failure", "deny"), "CDI producer"),
                    SluiceConfig.files());
        }

        @Produces
        @Singleton
        Store store() {
            return new SwitchableStore(time);
        }

        @Produces
        @Singleton
        TimeSource clock() {
            return time;
        }
    }

    private static WeldContainer weld() {
        Weld weld = new Weld().disableDiscovery().addBeanClasses(Application.class);
        ServiceLoader.load(Extension.class).forEach(weld::addExtension);
        return weld.initialize();
    }

    /** @return the shared front door of the produced configuration, as the servlet and JAX-RS filters use it */
    private static FrontDoor door(WeldContainer container) {
        return container.select(SluiceBeans.class).get().sharedFrontDoor();
    }

    private static void request(FrontDoor door, int times) {
        for (int i = 0; i < times; i++) {
            door.check(RequestView.builder("POST", "/login").remoteAddress("203.0.113.9").build());
        }
    }

    @Test
    void theReadinessCheckStaysUpWhileARuleRefusesAndSaysWhichAndSinceWhen() {
        try (WeldContainer container = weld()) {
            HealthCheck readiness = container.select(HealthCheck.class, Readiness.Literal.INSTANCE).get();
            assertThat(container.select(HealthCheck.class, Liveness.Literal.INSTANCE).isUnsatisfied())
                    .as("no liveness check: a restart does not bring Redis back").isTrue();
            assertThat(readiness.call().getData().orElseThrow()).containsEntry("store", "none");

            FrontDoor door = door(container);
            SwitchableStore store = (SwitchableStore) container.select(Store.class).get();
            request(door, 1);
            HealthCheckResponse up = readiness.call();
            assertThat(up.getName()).isEqualTo("sluice");
            assertThat(up.getStatus()).isEqualTo(HealthCheckResponse.Status.UP);
            assertThat(up.getData().orElseThrow()).containsEntry("store", "up").doesNotContainKey("deny");

            store.down = true;
            request(door, 3);
            HealthCheckResponse failing = readiness.call();
            assertThat(failing.getStatus()).as("fail-open must not take every node out at once")
                    .isEqualTo(HealthCheckResponse.Status.UP);
            assertThat(failing.getData().orElseThrow()).containsEntry("store", "failing")
                    .containsEntry("failingSince", "2023-11-14T00:00:00Z").containsEntry("deny", "login")
                    .containsEntry("outageDecisions", 1L).containsEntry("readinessOnStoreFailure", "up")
                    .doesNotContainKey("allow");

            store.down = false;
            ((ManualTimeSource) container.select(TimeSource.class).get()).advance(Duration.ofSeconds(1));
            request(door, 1);
            assertThat(readiness.call().getData().orElseThrow()).containsEntry("store", "up");
        }
    }

    @Test
    void configuredDownTheReadinessCheckIsDownWhileTheStoreFails() {
        System.setProperty("sluice." + StoreReadiness.PARAMETER, "down");
        try (WeldContainer container = weld()) {
            HealthCheck readiness = container.select(HealthCheck.class, Readiness.Literal.INSTANCE).get();
            FrontDoor door = door(container);
            assertThat(container.select(Engine.class).get()).as("the injected engine").isSameAs(door.engine());
            assertThat(readiness.call().getStatus()).isEqualTo(HealthCheckResponse.Status.UP);

            ((SwitchableStore) container.select(Store.class).get()).down = true;
            request(door, 3);

            HealthCheckResponse failing = readiness.call();
            assertThat(failing.getStatus()).isEqualTo(HealthCheckResponse.Status.DOWN);
            assertThat(failing.getData().orElseThrow()).containsEntry("readinessOnStoreFailure", "down");
        } finally {
            System.clearProperty("sluice." + StoreReadiness.PARAMETER);
        }
    }

    @Test
    void aValueOtherThanUpOrDownFailsTheDeploymentNamingIt() {
        System.setProperty("sluice." + StoreReadiness.PARAMETER, "sometimes");
        try {
            assertThatThrownBy(SluiceReadinessTest::weld).hasStackTraceContaining(
                    "sluice.readiness-on-store-failure (system property)").hasStackTraceContaining("sometimes");
        } finally {
            System.clearProperty("sluice." + StoreReadiness.PARAMETER);
        }
        assertThatThrownBy(() -> StoreReadiness.configured(Parameters.of("sluice", name -> null,
                name -> name.equals("SLUICE_READINESS_ON_STORE_FAILURE") ? "DOWNN" : null, Map.of(), "CDI")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("SLUICE_READINESS_ON_STORE_FAILURE")
                .hasMessageContaining("DOWNN");
    }
}
