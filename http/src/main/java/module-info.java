/**
 * What the servlet filter and the JAX-RS filter share: the front door, the 429 answer and configuration assembly.
 * Names no web framework. {@code io.sluice.http.spi} is what a runtime module ({@code sluice-cdi}) implements to give the
 * front doors its configuration, store and events; {@code io.sluice.http.internal} serves Sluice's own modules only.
 *
 * <p>"module": the qualified exports name modules that depend on this one, so are compiled after it; javac reports them
 * as "module not found". {@code ModuleGraphTest} (in {@code examples}) checks that each names a module of the build.
 */
@SuppressWarnings("module")
module io.sluice.http {
    requires transitive io.sluice.core;
    requires org.yaml.snakeyaml;

    exports io.sluice.http;
    exports io.sluice.http.spi;
    exports io.sluice.http.internal to io.sluice.cdi, io.sluice.filter, io.sluice.jaxrs;

    uses io.sluice.http.spi.IntegrationProvider;
}
