package io.sluice.demo.jaxrs;

import io.sluice.jaxrs.RateLimitFeature;
import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;
import java.util.Set;

/**
 * The demo's JAX-RS application at {@code /api/jaxrs}. Served by the server's JAX-RS on WildFly, Open Liberty,
 * GlassFish and Payara ({@code ee} WAR), and by the bundled Jersey on Tomcat and Jetty ({@code servlet} WAR).
 * Registers Sluice's {@link RateLimitFeature}, which applies the {@code @RateLimit} annotations of its resources.
 */
@ApplicationPath("/api/jaxrs")
public class DemoApplication extends Application {

    @Override
    public Set<Class<?>> getClasses() {
        return Set.of(GreetingResource.class, RateLimitFeature.class);
    }
}
