package io.sluice.benchmarks.quarkus;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

/** The endpoint measured: as cheap as Quarkus REST allows, so the cost of a filter in front of it shows. */
@Path("/")
public class HelloResource {

    @GET
    public String hello() {
        return "hello";
    }
}
