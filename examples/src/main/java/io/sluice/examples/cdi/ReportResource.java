package io.sluice.examples.cdi;

import io.sluice.jaxrs.RateLimit;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.Map;

/**
 * The application's API, a CDI bean. Every request counts against the produced configuration's rule
 * {@code per-tenant} (the servlet filter); the export also against {@code exports}, an annotation keyed by the same
 * produced {@code @Named("tenant")} resolver (the JAX-RS filter counts only what the servlet filter could not see).
 */
@Path("/reports")
@RequestScoped
public class ReportResource {

    @Inject
    Denials denials;

    @GET
    @Produces(MediaType.TEXT_PLAIN)
    public String list() {
        return "q1\nq2\nq3\n";
    }

    @GET
    @Path("/export")
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimit(value = "1/1h", key = "tenant", name = "exports")
    public String export() {
        return "quarter,revenue\nq1,100\n";
    }

    /** What {@link Denials} observed, such as {@code {"exports":1,"per-tenant":2}}. */
    @GET
    @Path("/denials")
    @Produces(MediaType.APPLICATION_JSON)
    public String denials() {
        StringBuilder json = new StringBuilder("{");
        for (Map.Entry<String, Long> e : denials.byRule().entrySet()) {
            json.append(json.length() > 1 ? "," : "").append('"').append(e.getKey()).append("\":").append(e.getValue());
        }
        return json.append('}').toString();
    }
}
