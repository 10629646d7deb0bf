package io.sluice.jaxrs;

import io.sluice.core.Engine;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import io.sluice.cdi.RateLimitedEvent;
import io.sluice.http.Parameters;
import io.sluice.http.SluiceConfig;
import io.sluice.core.key.KeyResolver;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.store.Store;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Produces;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/** What a CDI application of the tests produces, observes and injects. */
final class CdiBeans {

    private CdiBeans() {}

    /** Produces the configuration: one rule "cdi", 2 per hour per client IP. */
    @ApplicationScoped
    public static class Configuration {
        @Produces
        @Singleton
        SluiceConfig config() {
            return SluiceConfig.load(Parameters.of("sluice", name -> null, name -> null,
                    Map.of("limit", "2/1h", "name", "cdi"), "CDI producer"), SluiceConfig.files());
        }
    }

    /** Produces the store every front door decides in. */
    @ApplicationScoped
    public static class Stores {
        @Produces
        @Singleton
        Store store() {
            return MemoryStore.builder().build();
        }
    }

    /** Produces a second store of type {@code Store} and qualifier {@code @Default}: ambiguous with {@link Stores}. */
    @ApplicationScoped
    public static class AnotherStore {
        @Produces
        @Singleton
        @Named("cache")
        Store store() {
            return MemoryStore.builder().build();
        }
    }

    /** Produces the store in the default scope, {@code @Dependent}: a new one each time it is asked for. */
    @ApplicationScoped
    public static class DependentStores {
        static final java.util.concurrent.atomic.AtomicInteger PRODUCED = new java.util.concurrent.atomic.AtomicInteger();

        @Produces
        Store store() {
            PRODUCED.incrementAndGet();
            return MemoryStore.builder().build();
        }
    }

    /** Observes every denial and fails. */
    @ApplicationScoped
    public static class FailingObserver {
        void on(@Observes RateLimitedEvent event) {
            throw new IllegalStateException("the observer fails");
        }
    }

    /** Produces a Jedis client to the test's real redis-server (its URL in system property sluice.test.redis). */
    @ApplicationScoped
    public static class RedisClients {
        @Produces
        @Singleton
        redis.clients.jedis.UnifiedJedis client() {
            return redis.clients.jedis.RedisClient.create(System.getProperty("sluice.test.redis"));
        }

        void close(@jakarta.enterprise.inject.Disposes redis.clients.jedis.UnifiedJedis client) {
            client.close();
        }
    }

    /** Produces a key resolver named "tenant": the {@code X-Tenant} header. */
    @ApplicationScoped
    public static class Tenants {
        @Produces
        @Named("tenant")
        KeyResolver tenant() {
            return request -> request.header("X-Tenant");
        }
    }

    /**
     * Produces a key resolver named "account": the number in query parameter {@code account}, parsed; for one that is
     * not a number it throws, and the exception quotes the parameter as the client sent it.
     */
    @ApplicationScoped
    public static class Accounts {
        @Produces
        @Named("account")
        KeyResolver account() {
            return request -> "acct-" + Long.parseLong(request.queryParameter("account"));
        }
    }

    /** Observes every denial. */
    @ApplicationScoped
    public static class Denials {
        private final List<RateLimitedEvent> seen = new CopyOnWriteArrayList<>();

        void on(@Observes RateLimitedEvent event) {
            seen.add(event);
        }

        public List<RateLimitedEvent> seen() {
            return seen;
        }
    }

    /** Injects the engine for a programmatic limit on calls to a partner. */
    @ApplicationScoped
    public static class PartnerQuota {
        @Inject
        Engine engine;

        public Engine engine() {
            return engine;
        }

        public boolean tryCall(String account) {
            Outcome o = engine.tryAcquire("partner", account, Policy.parse("1/1h"), 1);
            return o.allowed();
        }
    }

    /** Limited per tenant, by the application's key resolver. */
    @Path("/tenants")
    public static class TenantResource {
        @GET
        @RateLimit(value = "1/1h", key = "tenant", name = "per-tenant")
        public String get() {
            return "hello";
        }
    }

    /** Calls the partner through the injected engine. */
    @Path("/partner/{account}")
    public static class PartnerResource {
        @GET
        public String call(@PathParam("account") String account) {
            return CDI.current().select(PartnerQuota.class).get().tryCall(account) ? "called" : "limited";
        }
    }
}
