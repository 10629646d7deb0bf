package io.sluice.examples.docs.readme;

import io.sluice.jaxrs.RateLimit;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Response;

/** README.md, "JAX-RS": the annotated resource. */
@Path("/reports")
@RateLimit(value = "100/1m", key = "principal")          // every method of the class, one counter per user
public class ReportResource {

    @POST
    @RateLimit("5/1m")                                   // and at most 5 a minute per client IP for this one
    public Response create(Report r) {
        return Response.status(Response.Status.CREATED).build();
    }
}
