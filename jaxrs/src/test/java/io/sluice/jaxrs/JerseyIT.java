package io.sluice.jaxrs;

/** The suite on Jersey. */
class JerseyIT extends RateLimitSuite {
    @Override
    JaxrsServer.Implementation implementation() {
        return new Jersey();
    }
}
