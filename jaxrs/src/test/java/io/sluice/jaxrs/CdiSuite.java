package io.sluice.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import io.sluice.core.Engine;
import io.sluice.cdi.RateLimitedEvent;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.store.Store;
import io.sluice.core.testing.LogCapture;
import io.sluice.http.spi.Integrations;
import io.sluice.http.spi.RuntimeIntegration;
import io.sluice.jaxrs.internal.JaxrsFront;
import jakarta.enterprise.inject.spi.Extension;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.jboss.weld.environment.servlet.Listener;
import org.junit.jupiter.api.Test;

/**
 * CDI with Weld: the application produces configuration, store and key resolvers, observes denials and injects the
 * engine. Weld SE boots with exactly the test's beans (Sluice's extension comes from its service file: discovery off,
 * Weld SE reads no service files itself, so the test loads them) and serves the
 * web application through Weld's servlet listener.
 */
abstract class CdiSuite {

    abstract JaxrsServer.Implementation implementation();

    /** Weld with exactly {@code beans}, and the extensions of the class path's service files (Sluice's among them). */
    private static WeldContainer weld(Class<?>... beans) {
        Weld weld = new Weld().disableDiscovery().addBeanClasses(beans);
        ServiceLoader.load(Extension.class).forEach(weld::addExtension);
        return weld.initialize();
    }

    private JaxrsServer start(WeldContainer container, JaxrsServer.Setup setup) throws Exception {
        setup.classes.add(CdiBeans.PartnerResource.class);
        setup.beforeStart = context -> context.addEventListener(Listener.using(container.getBeanManager()));
        return new JaxrsServer(implementation(), setup);
    }

    @Test
    void theProducedConfigurationIsLoggedOnceWithEverySettingAndItsSource() throws Exception {
        try (LogCapture log = new LogCapture("io.sluice.cdi.internal.SluiceBeans")) {
            try (WeldContainer container = weld(CdiBeans.Configuration.class, CdiBeans.Stores.class);
                    JaxrsServer server = start(container, new JaxrsServer.Setup().servletFilter(Map.of()))) {
                server.client().get("/api/hello").then().statusCode(200);
            }
            assertThat(log.messages()).as("one line for the two front doors that share it").singleElement()
                    .satisfies(line -> assertThat(line)
                            .startsWith("INFO io.sluice.cdi.internal.SluiceBeans: Sluice rate limiting (the application's"
                                    + " produced SluiceConfig): ")
                            .contains("\n  limit = 2/1h").contains("(from limit (CDI producer)")
                            .contains("\n  store = the application's produced MemoryStore (CDI)")
                            .as("not also parameter store's default").doesNotContain("store = memory"));
        }
    }

    @Test
    void theServletFilterFindsTheCdiIntegrationThroughTheServiceProviderInterface() throws Exception {
        try (WeldContainer container = weld(CdiBeans.Stores.class);
                JaxrsServer server = start(container, new JaxrsServer.Setup().servletFilter(Map.of("limit", "5/1h")))) {
            RuntimeIntegration found = Integrations.find().integration();
            assertThat(found).as("sluice-cdi's provider, answering with the running container's beans")
                    .isNotNull();
            assertThat(found.store()).isSameAs(container.select(Store.class).get());

            server.client().get("/plain/x").then().statusCode(200).header("X-RateLimit-Remaining", "4");
            assertThat(((MemoryStore) found.store()).trackedKeys()).as("the filter decides in the produced store")
                    .isEqualTo(1);
        }
    }

    @Test
    void theProducedConfigurationIsSharedByBothFrontDoorsAndTheInjectedEngine() throws Exception {
        try (WeldContainer container = weld(CdiBeans.Configuration.class, CdiBeans.Stores.class, CdiBeans.Denials.class,
                CdiBeans.PartnerQuota.class);
                JaxrsServer server = start(container, new JaxrsServer.Setup().servletFilter(Map.of()))) {
            server.client().get("/api/hello").then().statusCode(200).header("RateLimit-Policy", "\"cdi\";q=2;w=3600")
                    .header("X-RateLimit-Remaining", "1");
            server.client().get("/plain/x").then().statusCode(200).header("X-RateLimit-Remaining", "0");
            server.client().get("/api/hello").then().statusCode(429).body("error.context.policy", equalTo("cdi"));

            Engine injected = container.select(CdiBeans.PartnerQuota.class).get().engine();
            assertThat(injected).isSameAs(server.feature.front().door().engine());
            assertThat(((MemoryStore) container.select(Store.class).get()).trackedKeys()).isEqualTo(1);
            RateLimitedEvent denial = container.select(CdiBeans.Denials.class).get().seen().get(0);
            assertThat(denial.rule()).isEqualTo("cdi");
            assertThat(denial.keyHash()).hasSize(24).doesNotContain("127.0.0.1");
            assertThat(denial.retryAfterMicros()).isPositive();
            assertThat(denial.path()).isEqualTo("/api/hello");
            assertThat(container.select(CdiBeans.Denials.class).get().seen()).hasSize(1);
        }
    }

    @Test
    void theExceptionOfAKeyResolverThatQuotesAHostileRequestIsLoggedWithoutForgedLinesAndBounded() throws Exception {
        // a rule name per test class (two run Jersey): a resolver's failures are logged at most once a minute per rule
        String rule = "per-account-" + getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT);
        // a forged log line after CR LF, a terminal escape, and as much text as the request line takes
        String hostile = "7\r\nFORGED WARNING: admin logged in\u001b[2J" + "x".repeat(6_000);
        try (LogCapture log = new LogCapture(io.sluice.core.Rule.class.getName());
                WeldContainer container = weld(CdiBeans.Stores.class, CdiBeans.Accounts.class);
                JaxrsServer server = start(container, new JaxrsServer.Setup().servletFilter(
                        Map.of("limit", "5/1h", "key", "account", "name", rule)))) {
            server.client().queryParam("account", hostile).get("/api/hello").then().statusCode(200)
                    .header("RateLimit-Policy", "\"" + rule + "\";q=5;w=3600");

            assertThat(log.lines()).isNotEmpty();
            assertThat(log.unsafeLines("FORGED", 1_000)).as("forged, unbounded or with an escape sequence").isEmpty();
            assertThat(String.join("\n", log.lines())).contains("rule \"" + rule + "\": the key resolver threw",
                    "java.lang.NumberFormatException: For input string: \"7\\r\\nFORGED WARNING: admin logged in"
                            + "\\u001b[2Jxxx", "... (" + (hostile.length() + 20) + " characters)");
        }
    }

    @Test
    void withoutProducedConfigurationTheProducedStoreAndKeyResolverAreUsed() throws Exception {
        JaxrsServer.Setup setup = new JaxrsServer.Setup();
        setup.classes.add(CdiBeans.TenantResource.class);
        try (LogCapture log = new LogCapture("io.sluice.jaxrs.RateLimitFeature");
                WeldContainer container = weld(CdiBeans.Stores.class, CdiBeans.Tenants.class, CdiBeans.Denials.class);
                JaxrsServer server = start(container, setup)) {
            server.client().header("X-Tenant", "acme").get("/api/tenants").then().statusCode(200)
                    .header("RateLimit-Policy", "\"per-tenant\";q=1;w=3600");
            assertThat(log.messages()).anySatisfy(line -> assertThat(line).contains("Sluice rate limiting (JAX-RS)")
                    .contains("\n  store = the application's produced MemoryStore (CDI)")
                    .as("where the decisions are, not parameter store's default").doesNotContain("store = memory"));
            server.client().header("X-Tenant", "acme").get("/api/tenants").then().statusCode(429);
            server.client().header("X-Tenant", "globex").get("/api/tenants").then().statusCode(200);

            assertThat(((MemoryStore) container.select(Store.class).get()).trackedKeys()).isEqualTo(2);
            assertThat(container.select(CdiBeans.Denials.class).get().seen()).extracting(RateLimitedEvent::rule)
                    .containsExactly("per-tenant");
        }
    }

    @Test
    void theInjectedEngineReadsRulesFromTheWarOfItsThread(@org.junit.jupiter.api.io.TempDir java.nio.file.Path war)
            throws Exception {
        java.nio.file.Files.createDirectories(war.resolve("WEB-INF"));
        java.nio.file.Files.writeString(war.resolve("WEB-INF/sluice-rules.yaml"), "rules: [{name: from-the-war, limit: 3/1h}]");
        Thread thread = Thread.currentThread();
        ClassLoader before = thread.getContextClassLoader();
        java.util.function.Function<String, io.sluice.http.RulesSource> inWar = value ->
                io.sluice.http.RulesSource.inWebApp(path -> war.resolve(path.substring(1)).toString(), path -> null,
                        value);
        System.setProperty("sluice.rules", "/WEB-INF/sluice-rules.yaml");
        try (java.net.URLClassLoader warLoader = new java.net.URLClassLoader(new java.net.URL[0], before)) {
            io.sluice.http.internal.WebApps.register(warLoader, inWar);
            try (WeldContainer container = weld(CdiBeans.Stores.class, CdiBeans.PartnerQuota.class)) {
                thread.setContextClassLoader(warLoader);         // as a container sets it while the WAR runs
                assertThat(container.select(CdiBeans.PartnerQuota.class).get().tryCall("a1")).isTrue();
            } finally {
                thread.setContextClassLoader(before);
                io.sluice.http.internal.WebApps.remove(warLoader, inWar);
            }
            try (WeldContainer container = weld(CdiBeans.Stores.class, CdiBeans.PartnerQuota.class)) {
                org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> container.select(CdiBeans.PartnerQuota.class).get().tryCall("a1"))
                        .as("outside the WAR, /WEB-INF/... is a file path: there is none")
                        .hasStackTraceContaining("sluice.rules (system property)");
            }
        } finally {
            System.clearProperty("sluice.rules");
        }
    }

    @Test
    void theInjectedEngineServesProgrammaticChecks() throws Exception {
        try (WeldContainer container = weld(CdiBeans.Stores.class, CdiBeans.PartnerQuota.class);
                JaxrsServer server = start(container, new JaxrsServer.Setup())) {
            server.client().get("/api/partner/a1").then().statusCode(200).body(equalTo("called"));
            server.client().get("/api/partner/a1").then().statusCode(200).body(equalTo("limited"));
            server.client().get("/api/partner/a2").then().statusCode(200).body(equalTo("called"));
        }
    }

    @Test
    void aProducedJedisClientPutsEveryDecisionInRedis() throws Exception {
        try (io.sluice.core.testing.RedisProcess redisServer = io.sluice.core.testing.RedisProcess.start()) {
            System.setProperty("sluice.test.redis", redisServer.url());
            JaxrsServer.Setup setup = new JaxrsServer.Setup();
            setup.classes.add(CdiBeans.TenantResource.class);
            try (WeldContainer container = weld(CdiBeans.RedisClients.class, CdiBeans.Tenants.class);
                    JaxrsServer server = start(container, setup);
                    redis.clients.jedis.RedisClient admin = redis.clients.jedis.RedisClient.create(redisServer.url())) {
                server.client().header("X-Tenant", "acme").get("/api/tenants").then().statusCode(200);
                server.client().header("X-Tenant", "acme").get("/api/tenants").then().statusCode(429);
                assertThat(admin.keys("sluice:*")).as("the state lives in the real Redis").isNotEmpty();
            } finally {
                System.clearProperty("sluice.test.redis");
            }
        }
    }

    @Test
    void theJaxrsFilterUsesAProducedKeyResolverByNameInItsParameters() throws Exception {
        try (WeldContainer container = weld(CdiBeans.Tenants.class);
                JaxrsServer server = start(container, new JaxrsServer.Setup().property("sluice.limit", "1/1h")
                        .property("sluice.key", "tenant").property("sluice.name", "per-tenant-jaxrs"))) {
            server.client().header("X-Tenant", "acme").get("/api/hello").then().statusCode(200)
                    .header("RateLimit-Policy", "\"per-tenant-jaxrs\";q=1;w=3600");
            server.client().header("X-Tenant", "acme").get("/api/hello").then().statusCode(429);
            server.client().header("X-Tenant", "globex").get("/api/hello").then().statusCode(200);
        }
    }

    @Test
    void theServletFilterUsesAProducedKeyResolverByName() throws Exception {
        try (WeldContainer container = weld(CdiBeans.Tenants.class);
                JaxrsServer server = start(container, new JaxrsServer.Setup()
                        .servletFilter(Map.of("limit", "1/1h", "key", "tenant", "name", "per-tenant-filter")))) {
            server.client().header("X-Tenant", "acme").get("/api/hello").then().statusCode(200)
                    .header("RateLimit-Policy", "\"per-tenant-filter\";q=1;w=3600");
            server.client().header("X-Tenant", "acme").get("/api/hello").then().statusCode(429);
            server.client().header("X-Tenant", "globex").get("/api/hello").then().statusCode(200);
        }
    }
    @Test
    void twoProducedStoresFailStartUpNamingTheTypeInsteadOfBeingIgnored() throws Exception {
        try (WeldContainer container = weld(CdiBeans.Stores.class, CdiBeans.AnotherStore.class)) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> JaxrsFront.open(null,
                    new org.glassfish.jersey.server.ResourceConfig(), io.sluice.core.time.TimeSource.system()))
                    .isInstanceOf(io.sluice.core.config.ConfigException.class)
                    .hasMessageContaining("io.sluice.core.store.Store").hasMessageContaining("ambiguous");
        }
        try (WeldContainer container = weld(CdiBeans.Configuration.class, CdiBeans.Stores.class,
                CdiBeans.AnotherStore.class)) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> start(container,
                    new JaxrsServer.Setup().servletFilter(Map.of())).close())
                    .hasStackTraceContaining("Sluice rate limiting (filter sluice): invalid configuration: ")
                    .hasStackTraceContaining("io.sluice.core.store.Store");
        }
    }

    @Test
    void aDependentProducedStoreIsAskedForOnceAndSharedByEveryFrontDoor() throws Exception {
        CdiBeans.DependentStores.PRODUCED.set(0);
        try (WeldContainer container = weld(CdiBeans.DependentStores.class, CdiBeans.PartnerQuota.class);
                JaxrsServer server = start(container, new JaxrsServer.Setup().servletFilter(Map.of("limit", "5/1h")))) {
            server.client().get("/api/partner/a1").then().statusCode(200).body(equalTo("called"));
            server.client().get("/api/partner/a1").then().statusCode(200).body(equalTo("limited"));
            assertThat(CdiBeans.DependentStores.PRODUCED.get()).as("each store produced is one the application may "
                    + "never close (a Redis pool)").isEqualTo(1);
        }
    }

    @Test
    void anObserverThatFailsDoesNotTurnTheDenialIntoAnError() throws Exception {
        try (WeldContainer container = weld(CdiBeans.FailingObserver.class);
                JaxrsServer server = start(container, new JaxrsServer.Setup().servletFilter(Map.of("limit", "1/1h")))) {
            server.client().get("/api/hello").then().statusCode(200);
            server.client().get("/api/hello").then().statusCode(429);
        }
    }

    /**
     * The servlet filter refuses to queue a request when as many wait as it may hold (here none): that 429 fires a
     * {@link RateLimitedEvent} like any other, once, although the engine had admitted the request after a delay.
     */
    @Test
    void aRequestTheServletFilterRefusesToQueueFiresTheEvent() throws Exception {
        try (WeldContainer container = weld(CdiBeans.Denials.class);
                JaxrsServer server = start(container, new JaxrsServer.Setup()
                        .servletFilter(Map.of("limit", "1/1h burst 2 max-wait 2h", "name", "queue"))
                        .servletFilterQueue(0))) {
            server.client().get("/plain/x").then().statusCode(200);
            server.client().get("/plain/x").then().statusCode(429).header("Retry-After", "3600");   // would wait 1 h

            assertThat(container.select(CdiBeans.Denials.class).get().seen()).singleElement().satisfies(denial -> {
                assertThat(denial.rule()).isEqualTo("queue");
                assertThat(denial.retryAfterMicros()).isEqualTo(3_600_000_000L);
                assertThat(denial.storeUnavailable()).isFalse();
                assertThat(denial.path()).isEqualTo("/plain/x");
            });
        }
    }
}
