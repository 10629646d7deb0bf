package io.sluice.demo.jaxrs;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/**
 * {@code GET /api/jaxrs/greeting}: the demo's JAX-RS resource, 3 requests per 10 s per client IP.
 *
 * <p>The place for {@code @RateLimit("3/10s")} from {@code sluice-jaxrs}: until that module is part of the build,
 * rule {@code jaxrs-greeting} in {@code WEB-INF/sluice-rules.yaml} applies the same limit through the servlet filter.
 * With the annotation, that rule goes and this resource carries its own limit.
 */
@Path("/greeting")
public class GreetingResource {

    @GET
    @Produces(MediaType.TEXT_PLAIN)
    public String greet() {
        return "Hello from JAX-RS!\n";
    }
}
