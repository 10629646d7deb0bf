package io.sluice.jaxrs;

import org.junit.jupiter.api.Test;

/** The lease suite on RESTEasy. */
class ResteasyLeasesIT extends LeaseSuite {
    @Override
    JaxrsServer.Implementation implementation() {
        return new Resteasy();
    }

    /**
     * With its default exception mapper turned off ({@code dev.resteasy.exception.mapper=false}), RESTEasy hands an
     * unmapped exception to the container: no response filter or writer interceptor runs, and only the initializer's
     * end-of-request listener releases the lease.
     */
    @Test
    void anExceptionHandedToTheContainerReleasesTheLeaseWhenTheRequestEnds() throws Exception {
        JaxrsServer server;
        System.setProperty("dev.resteasy.exception.mapper", "false");     // read when the deployment starts
        try {
            server = start(true);
        } finally {
            System.clearProperty("dev.resteasy.exception.mapper");
        }
        try (server) {
            server.client().get("/api/failing-reports").then().statusCode(500);
            for (int i = 0; i < 2; i++) {
                eventually(server, "/api/failing-reports", 500);     // released after the container's 500 went out
            }
        }
    }
}
