package io.sluice.quarkus;

import io.sluice.jaxrs.RateLimit;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

/** The test application's resource: one method under the configured rule, one with an annotation of its own. */
@Path("/api")
public class GreetingResource {

    @GET
    @Path("/hello")
    public String hello() {
        return "hello";
    }

    @GET
    @Path("/open")
    public String open() {
        return "open";
    }

    @GET
    @Path("/report")
    @RateLimit(name = "reports", limit = "2/1h", key = "header:X-Client")
    public String report() {
        return "report";
    }
}
