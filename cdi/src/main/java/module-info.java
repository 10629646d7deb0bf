/**
 * CDI and MicroProfile Config for the front doors: {@link io.sluice.cdi.RateLimitedEvent} is the API; the beans, the
 * extension and the lookups in {@code io.sluice.cdi.internal} serve the CDI container, and the front doors find them
 * as an {@code io.sluice.http.spi.IntegrationProvider} (no front door names a type of this module).
 * MicroProfile Config is reached by reflection ({@code MicroProfileLookup}): its API's jar declares no module name.
 */
module io.sluice.cdi {
    requires transitive io.sluice.http;
    requires io.sluice.micrometer;
    requires static io.sluice.redis;
    requires static redis.clients.jedis;
    requires static jakarta.cdi;
    requires static jakarta.inject;
    requires static jakarta.annotation;
    requires static microprofile.health.api;
    requires static micrometer.core;

    exports io.sluice.cdi;
    opens io.sluice.cdi.internal;

    provides io.sluice.http.spi.IntegrationProvider with io.sluice.cdi.internal.CdiIntegrationProvider;
}
