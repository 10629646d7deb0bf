package io.sluice.jaxrs;

/** The suite on RESTEasy. */
class ResteasyIT extends RateLimitSuite {
    @Override
    JaxrsServer.Implementation implementation() {
        return new Resteasy();
    }
}
