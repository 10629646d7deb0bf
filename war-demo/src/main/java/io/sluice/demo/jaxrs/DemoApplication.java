package io.sluice.demo.jaxrs;

import io.sluice.demo.DemoRateLimitFilter;
import io.sluice.jaxrs.RateLimitFeature;
import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The demo's JAX-RS application at {@code /api/jaxrs}. Served by the server's JAX-RS on WildFly, Open Liberty,
 * GlassFish and Payara ({@code ee} WAR), and by the bundled Jersey on Tomcat and Jetty ({@code servlet} WAR).
 * Registers Sluice's {@link RateLimitFeature}, which applies the {@code @RateLimit} annotations of its resources.
 * With {@value DemoRateLimitFilter#REDIS_URL} set, its limits are kept in that Redis, as the demo's filter keeps its own.
 */
@ApplicationPath("/api/jaxrs")
public class DemoApplication extends Application {

    @Override
    public Set<Class<?>> getClasses() {
        return Set.of(GreetingResource.class, RateLimitFeature.class);
    }

    @Override
    public Map<String, Object> getProperties() {
        return properties(System::getenv);
    }

    /**
     * @return the JAX-RS property {@code sluice.store} set to {@value DemoRateLimitFilter#REDIS_URL} when that is set
     *     ({@code SLUICE_STORE} and {@code -Dsluice.store} still win, as for the filter); else none
     */
    static Map<String, Object> properties(Function<String, String> environment) {
        String redisUrl = environment.apply(DemoRateLimitFilter.REDIS_URL);
        return redisUrl == null || redisUrl.isBlank() ? Map.of() : Map.of("sluice.store", redisUrl.trim());
    }
}
