/**
 * CDI and MicroProfile Config for the front doors: {@link io.sluice.cdi.RateLimitedEvent} is the API; the beans, the
 * extension and the lookups in {@code io.sluice.cdi.internal} serve Sluice's own modules and the CDI container.
 */
module io.sluice.cdi {
    requires transitive io.sluice.http;
    requires io.sluice.micrometer;
    requires static io.sluice.redis;
    requires static redis.clients.jedis;
    requires static jakarta.cdi;
    requires static jakarta.inject;
    requires static jakarta.annotation;
    requires static microprofile.config.api;
    requires static microprofile.health.api;
    requires static micrometer.core;

    exports io.sluice.cdi;
    exports io.sluice.cdi.internal to io.sluice.filter, io.sluice.jaxrs;
    opens io.sluice.cdi.internal;
}
