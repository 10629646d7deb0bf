package io.sluice.jaxrs;

/** CDI with Weld, on RESTEasy. */
class ResteasyCdiIT extends CdiSuite {
    @Override
    JaxrsServer.Implementation implementation() {
        return new Resteasy();
    }
}
