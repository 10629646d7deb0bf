package io.sluice.examples.docs.jaxrs;

import io.sluice.jaxrs.RateLimit;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Response;
import java.util.List;

/** docs/jaxrs.md, "Rule names": which counters each method counts against. */
@Path("/reports")
@RateLimit(value = "100/1m", key = "principal")                  // rule "ReportResource": every method, one counter
public class ReportResource {

    @GET @Path("/{id}")
    public Report get(@PathParam("id") String id) {         // ReportResource
        return new Report(id);
    }

    @POST
    @RateLimit(value = "5/1m", key = "principal")                 // ReportResource + ReportResource.create
    public Response create(Report r) {
        return Response.status(Response.Status.CREATED).build();
    }

    @GET @Path("/search")
    @RateLimit(name = "ReportResource", value = "20/1m", key = "principal")   // replaces the class rule here
    public List<Report> search(@QueryParam("q") String q) {
        return List.of(new Report(q));
    }

    @GET @Path("/export")
    @RateLimit(rule = "exports", cost = 5)                        // ReportResource + rule "exports" of the rules file
    public Response export() {
        return Response.ok().build();
    }
}
