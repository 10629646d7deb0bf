/** Jakarta REST: {@code @RateLimit}, {@link io.sluice.jaxrs.RateLimitFeature} and the filters it registers. */
module io.sluice.jaxrs {
    requires io.sluice.http;
    requires io.sluice.cdi;
    requires static jakarta.ws.rs;
    requires static jakarta.servlet;
    requires static jakarta.annotation;

    exports io.sluice.jaxrs;
    opens io.sluice.jaxrs;
}
