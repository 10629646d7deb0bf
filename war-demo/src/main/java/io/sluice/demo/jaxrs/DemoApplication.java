package io.sluice.demo.jaxrs;

import io.sluice.demo.DemoRateLimitFilter;
import io.sluice.http.Parameters;
import io.sluice.jaxrs.RateLimitFeature;
import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;
import java.util.HashMap;
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
     * Jersey's, which other implementations ignore: no WADL (it needs JAXB, which the demo does not bring, and Jersey
     * warned at every start that it was disabled), and no {@code DataSource} body provider (it needs Jakarta
     * Activation, and Jersey warned that it was unavailable). The demo uses neither.
     */
    static final Map<String, Object> JERSEY = Map.of("jersey.config.server.wadl.disableWadl", true,
            "jersey.config.disableDefaultProvider", "DATASOURCE");

    /**
     * @return {@link #JERSEY}, with the JAX-RS property {@code sluice.store} set to
     *     {@value DemoRateLimitFilter#REDIS_URL} when that is set ({@code SLUICE_STORE} and {@code -Dsluice.store}
     *     still win, as for the filter)
     */
    static Map<String, Object> properties(Function<String, String> environment) {
        String redisUrl = environment.apply(DemoRateLimitFilter.REDIS_URL);
        if (redisUrl == null || redisUrl.isBlank()) {
            return JERSEY;
        }
        Map<String, Object> properties = new HashMap<>(JERSEY);
        properties.put("sluice.store", new Parameters.Sourced(redisUrl.trim(),     // named as its variable in logs
                DemoRateLimitFilter.REDIS_URL + " (environment variable)"));
        return Map.copyOf(properties);
    }
}
