package io.sluice.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.core.config.ConfigException;
import io.sluice.core.testing.LogCapture;
import io.sluice.jaxrs.internal.JaxrsFront;
import io.sluice.core.time.TimeSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.inject.Singleton;
import java.util.Map;
import java.util.ServiceLoader;
import org.glassfish.jersey.server.ResourceConfig;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.jboss.weld.environment.servlet.Listener;
import org.junit.jupiter.api.Test;

/**
 * CDI with Weld, on Jersey: an application that produces a Micrometer {@link MeterRegistry} gets Sluice's metrics from
 * both front doors, configured by parameters (web.xml, JAX-RS properties) or by a produced configuration.
 */
class CdiMetricsIT {

    /** Produces the registry every front door publishes to. */
    @ApplicationScoped
    public static class Registries {
        @Produces
        @Singleton
        MeterRegistry registry() {
            return new SimpleMeterRegistry();
        }
    }

    /** Produces a second registry with qualifier {@code @Default}: ambiguous with {@link Registries}. */
    @ApplicationScoped
    public static class AnotherRegistry {
        @Produces
        @Singleton
        SimpleMeterRegistry registry() {
            return new SimpleMeterRegistry();
        }
    }

    private static WeldContainer weld(Class<?>... beans) {
        Weld weld = new Weld().disableDiscovery().addBeanClasses(beans);
        ServiceLoader.load(Extension.class).forEach(weld::addExtension);
        return weld.initialize();
    }

    private static JaxrsServer start(WeldContainer container, JaxrsServer.Setup setup) throws Exception {
        setup.beforeStart = context -> context.addEventListener(Listener.using(container.getBeanManager()));
        return new JaxrsServer(new Jersey(), setup);
    }

    private static double decisions(MeterRegistry registry, String rule, String outcome) {
        var counter = registry.find("sluice.decisions").tag("rule", rule).tag("outcome", outcome).counter();
        return counter == null ? 0 : counter.count();
    }

    /**
     * The produced configuration: one front door shared by the servlet filter and the JAX-RS filter, which leaves out
     * the rules the servlet filter counted: each decision counts once.
     */
    @Test
    void bothFrontDoorsOfAProducedConfigurationCountEachDecisionOnce() throws Exception {
        try (LogCapture log = new LogCapture("io.sluice.cdi.internal.SluiceBeans");
                WeldContainer container = weld(CdiBeans.Configuration.class, CdiBeans.Stores.class, Registries.class);
                JaxrsServer server = start(container, new JaxrsServer.Setup().servletFilter(Map.of()))) {
            server.client().get("/api/hello").then().statusCode(200);
            server.client().get("/api/hello").then().statusCode(200);
            server.client().get("/api/hello").then().statusCode(429);

            MeterRegistry registry = container.select(MeterRegistry.class).get();
            assertThat(decisions(registry, "cdi", "allowed")).isEqualTo(1);
            assertThat(decisions(registry, "cdi", "near_limit")).isEqualTo(1);
            assertThat(decisions(registry, "cdi", "denied")).isEqualTo(1);
            assertThat(registry.get("sluice.store.circuit").gauge().value()).isZero();
            assertThat(registry.get("sluice.store.latency").timer().count())
                    .as("the memory store is not wrapped: its fast paths stay").isZero();
            assertThat(registry.get("sluice.shared.version").gauge().value()).as("the local rules alone").isZero();
            assertThat(registry.get("sluice.shared.rejections").functionCounter().count()).isZero();
            assertThat(log.messages()).singleElement().satisfies(line -> assertThat(line)
                    .contains("\n  metrics = micrometer (CDI MeterRegistry)"));
        }
    }

    /**
     * Without a produced configuration: the servlet filter (init-params, as in web.xml) and the JAX-RS filter
     * (annotations) are two front doors, each counting its own rules into the one registry.
     */
    @Test
    void theServletFilterAndTheJaxrsFilterOfTheirOwnParametersCountTheirOwnRules() throws Exception {
        JaxrsServer.Setup setup = new JaxrsServer.Setup().servletFilter(Map.of("limit", "5/1h", "name", "web-xml"));
        setup.classes.add(CdiBeans.TenantResource.class);
        try (LogCapture filterLog = new LogCapture("io.sluice.filter.RateLimitFilter");
                LogCapture jaxrsLog = new LogCapture("io.sluice.jaxrs.RateLimitFeature");
                WeldContainer container = weld(CdiBeans.Stores.class, CdiBeans.Tenants.class, Registries.class);
                JaxrsServer server = start(container, setup)) {
            server.client().header("X-Tenant", "acme").get("/api/tenants").then().statusCode(200);
            server.client().header("X-Tenant", "acme").get("/api/tenants").then().statusCode(429);

            MeterRegistry registry = container.select(MeterRegistry.class).get();
            assertThat(decisions(registry, "web-xml", "allowed")).isEqualTo(2);
            assertThat(decisions(registry, "per-tenant", "near_limit")).isEqualTo(1);
            assertThat(decisions(registry, "per-tenant", "denied")).isEqualTo(1);
            assertThat(registry.find("sluice.decisions").counters()).hasSize(3);
            assertThat(filterLog.messages()).as("the servlet filter's start-up line")
                    .anySatisfy(line -> assertThat(line).contains("\n  metrics = micrometer (CDI MeterRegistry)"));
            assertThat(jaxrsLog.messages()).as("the JAX-RS filter's start-up line")
                    .anySatisfy(line -> assertThat(line).contains("\n  metrics = micrometer (CDI MeterRegistry)"));
        }
    }

    @Test
    void aStoreOverTheNetworkIsTimed() throws Exception {
        try (io.sluice.core.testing.RedisProcess redisServer = io.sluice.core.testing.RedisProcess.start()) {
            System.setProperty("sluice.test.redis", redisServer.url());
            try (WeldContainer container = weld(CdiBeans.RedisClients.class, Registries.class);
                    JaxrsServer server = start(container, new JaxrsServer.Setup()
                            .servletFilter(Map.of("limit", "5/1h", "name", "in-redis")))) {
                server.client().get("/api/hello").then().statusCode(200);

                MeterRegistry registry = container.select(MeterRegistry.class).get();
                assertThat(decisions(registry, "in-redis", "allowed")).isEqualTo(1);
                assertThat(registry.get("sluice.store.latency").timer().count()).isEqualTo(1);
            } finally {
                System.clearProperty("sluice.test.redis");
            }
        }
    }

    @Test
    void anApplicationWithoutARegistryGetsNoMetricsAndNoError() throws Exception {
        try (LogCapture log = new LogCapture("io.sluice.filter.RateLimitFilter");
                WeldContainer container = weld(CdiBeans.Stores.class);
                JaxrsServer server = start(container, new JaxrsServer.Setup().servletFilter(Map.of("limit", "1/1h")))) {
            server.client().get("/api/hello").then().statusCode(200);
            server.client().get("/api/hello").then().statusCode(429);
            assertThat(log.messages()).isNotEmpty().noneSatisfy(line -> assertThat(line).contains("metrics ="));
        }
    }

    @Test
    void twoProducedRegistriesFailStartUpNamingTheType() throws Exception {
        try (WeldContainer container = weld(Registries.class, AnotherRegistry.class)) {
            assertThatThrownBy(() -> JaxrsFront.open(null, new ResourceConfig(), TimeSource.system()))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("2 beans of type io.micrometer.core.instrument.MeterRegistry with qualifier "
                            + "@Default, which is ambiguous");
            assertThatThrownBy(() -> start(container, new JaxrsServer.Setup().servletFilter(Map.of())).close())
                    .hasStackTraceContaining("Sluice rate limiting (filter sluice): invalid configuration: ")
                    .hasStackTraceContaining("io.micrometer.core.instrument.MeterRegistry");
        }
    }
}
