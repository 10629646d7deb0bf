package io.sluice.jaxrs;

/** The lease suite on Jersey. */
class JerseyLeasesIT extends LeaseSuite {
    @Override
    JaxrsServer.Implementation implementation() {
        return new Jersey();
    }
}
