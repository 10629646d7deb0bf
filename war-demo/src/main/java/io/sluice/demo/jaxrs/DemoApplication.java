package io.sluice.demo.jaxrs;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/**
 * The demo's JAX-RS application at {@code /api/jaxrs}. Served by the server's JAX-RS on WildFly, Open Liberty,
 * GlassFish and Payara ({@code ee} WAR), and by the bundled Jersey on Tomcat and Jetty ({@code servlet} WAR).
 */
@ApplicationPath("/api/jaxrs")
public class DemoApplication extends Application {
}
