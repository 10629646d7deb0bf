package io.sluice.examples.quarkus;

import io.sluice.jaxrs.RateLimit;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;
import java.util.List;
import java.util.Locale;

/**
 * A Quarkus REST resource. Every method is under the rule of {@code sluice.limit} in application.properties; the search,
 * dearer to answer, has a tighter limit of its own.
 */
@Path("/books")
public class BookResource {

    private static final List<String> TITLES = List.of("Dune", "Emma", "Ulysses");

    @GET
    public String list() {
        return String.join("\n", TITLES);
    }

    @GET
    @Path("/search")
    @RateLimit(limit = "5/1m", name = "search")
    public String search(@QueryParam("q") String q) {
        String query = q == null ? "" : q.toLowerCase(Locale.ROOT);
        return String.join("\n", TITLES.stream().filter(t -> t.toLowerCase(Locale.ROOT).contains(query)).toList());
    }
}
