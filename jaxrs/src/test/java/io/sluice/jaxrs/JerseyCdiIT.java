package io.sluice.jaxrs;

/** CDI with Weld, on Jersey. */
class JerseyCdiIT extends CdiSuite {
    @Override
    JaxrsServer.Implementation implementation() {
        return new Jersey();
    }
}
