/**
 * What the servlet filter and the JAX-RS filter share: the front door, the 429 answer and configuration assembly.
 * Names no web framework. {@code io.sluice.http.internal} serves Sluice's own modules only.
 */
module io.sluice.http {
    requires transitive io.sluice.core;
    requires org.yaml.snakeyaml;

    exports io.sluice.http;
    exports io.sluice.http.internal to io.sluice.cdi, io.sluice.filter, io.sluice.jaxrs;
}
