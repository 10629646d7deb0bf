package io.sluice.examples.cdi;

import io.sluice.http.Parameters;
import io.sluice.http.SluiceConfig;
import io.sluice.core.key.KeyResolver;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.store.Store;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import java.util.Map;

/**
 * Configuring Sluice with CDI producers: the application produces what Sluice uses, and both front doors (the servlet
 * filter in {@code web.xml} and the JAX-RS filter of {@code RateLimitFeature}) pick it up through Sluice's portable
 * extension. Nothing else configures Sluice here: the filter in {@code web.xml} has no init parameters.
 */
@ApplicationScoped
public class RateLimiting {

    /** Who the client is: the tenant named by the {@code X-Tenant} header (the gateway in front of us sets it). */
    @Produces
    @Named("tenant")
    KeyResolver tenant() {
        return request -> request.header("X-Tenant");
    }

    /**
     * One rule for every request: 3 per minute per tenant. The parameters are those of the servlet filter; system
     * properties and environment variables ({@code -Dsluice.limit}, {@code SLUICE_LIMIT}) still override them.
     */
    @Produces
    @Singleton
    SluiceConfig config(@Named("tenant") KeyResolver tenant) {
        return SluiceConfig.load(
                Parameters.of("sluice", Map.of("limit", "3/1m", "key", "tenant", "name", "per-tenant"), "CDI producer"),
                SluiceConfig.files(), Map.of("tenant", tenant));
    }

    /**
     * Where every front door decides. In memory here; for a fleet, produce
     * {@code RedisStore.builder().url("redis://redis.internal:6379").build()} instead (or a Jedis {@code UnifiedJedis}
     * client, and Sluice builds the {@code RedisStore} around it). The application owns it: Sluice never closes it.
     */
    @Produces
    @Singleton
    Store store() {
        return MemoryStore.builder().maximumKeys(10_000).build();
    }

    void close(@Disposes Store store) {
        store.close();
    }
}
