/**
 * CDI and MicroProfile Config for the front doors: {@link io.sluice.cdi.RateLimitedEvent} is the API; the beans, the
 * extension and the lookups in {@code io.sluice.cdi.internal} serve Sluice's own modules and the CDI container.
 * MicroProfile Config is reached by reflection ({@code MicroProfileLookup}): its API's jar declares no module name.
 *
 * <p>"module": the qualified exports name modules that depend on this one, so are compiled after it; javac reports them
 * as "module not found". {@code ModuleGraphTest} (in {@code examples}) checks that each names a module of the build.
 */
@SuppressWarnings("module")
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
    exports io.sluice.cdi.internal to io.sluice.filter, io.sluice.jaxrs;
    opens io.sluice.cdi.internal;
}
