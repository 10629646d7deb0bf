package io.sluice.examples.annotations;

import io.sluice.jaxrs.RateLimit;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

/**
 * A JAX-RS resource limited by {@code @RateLimit} annotations alone: no rules file, no init parameters. Every client
 * is an API key ({@code X-Api-Key}); requests without one are not limited (annotation rules skip a missing key).
 *
 * <ul>
 *   <li>the class annotation is rule {@code BookResource}: 5 requests per minute per API key, shared by every method;
 *   <li>{@code search} is also limited by a rule of its own, {@code BookResource.search}: 2 per minute, counted
 *       together with the class rule (all or nothing);
 *   <li>{@code export} replaces the class rule by one of the same name, so it counts in the same 5 per minute, at a
 *       cost of 5: one export uses up the key's whole minute.
 * </ul>
 */
@Path("/books")
@Produces(MediaType.TEXT_PLAIN)
@RateLimit(value = "5/1m", key = "header:X-Api-Key")
public class BookResource {

    @GET
    public String list() {
        return "Dune\nSolaris\nNeuromancer\n";
    }

    @GET
    @Path("/search")
    @RateLimit(value = "2/1m", key = "header:X-Api-Key")
    public String search(@QueryParam("q") String query) {
        return query != null && "dune".startsWith(query.toLowerCase(java.util.Locale.ROOT)) ? "Dune\n" : "";
    }

    @GET
    @Path("/export")
    @RateLimit(name = "BookResource", value = "5/1m", key = "header:X-Api-Key", cost = 5)
    public String export() {
        return "title\nDune\nSolaris\nNeuromancer\n";
    }
}
