/**
 * Jakarta REST: {@code @RateLimit}, {@link io.sluice.jaxrs.RateLimitFeature} and the filters it registers. The filters,
 * the annotations' rules and the lease completion live in {@code io.sluice.jaxrs.internal}, exported to no module: the
 * JAX-RS implementation (and CDI) reaches them reflectively, which {@code opens} allows.
 */
module io.sluice.jaxrs {
    requires io.sluice.http;
    requires static jakarta.ws.rs;
    requires static jakarta.servlet;
    requires static jakarta.annotation;
    requires static jakarta.cdi;

    exports io.sluice.jaxrs;
    opens io.sluice.jaxrs;
    opens io.sluice.jaxrs.internal;
}
