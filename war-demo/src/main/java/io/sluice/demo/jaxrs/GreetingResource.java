package io.sluice.demo.jaxrs;

import io.sluice.jaxrs.RateLimit;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/**
 * {@code GET /api/jaxrs/greeting}: the demo's JAX-RS resource, 3 requests per 10 s per client IP.
 *
 * <p>Limited by its own {@code @RateLimit} (sluice-jaxrs, registered by {@link DemoApplication}); the servlet filter
 * in front has no rule for this path, so the request is counted once, here.
 */
@Path("/greeting")
@RateLimit(value = "3/10s", name = "jaxrs-greeting")
public class GreetingResource {

    @GET
    @Produces(MediaType.TEXT_PLAIN)
    public String greet() {
        return "Hello from JAX-RS!\n";
    }
}
