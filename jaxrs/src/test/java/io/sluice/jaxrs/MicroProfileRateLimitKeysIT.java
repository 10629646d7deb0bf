package io.sluice.jaxrs;

import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.smallrye.config.SmallRyeConfigProviderResolver;
import jakarta.enterprise.inject.spi.Extension;
import java.util.Map;
import java.util.ServiceLoader;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.jboss.weld.environment.servlet.Listener;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code @RateLimit} attributes overridden through MicroProfile Config (SmallRye Config) in the Fault Tolerance key
 * style, on Weld and Jersey: method over class over global, and {@code enabled}. {@code Resources.Limited} has
 * {@code @RateLimit("3/1h")} on the class, {@code 1/1h} on {@code b} and {@code 5/1h} named as the class on {@code c}.
 */
class MicroProfileRateLimitKeysIT {

    private static final String LIMITED = Resources.Limited.class.getName();

    @AfterEach
    void removeTheImplementation() {
        ConfigProviderResolver.setInstance(null);
    }

    /** SmallRye Config with exactly {@code values}, whatever the class loader asks. */
    private static void smallRye(Map<String, String> values) {
        SmallRyeConfig config = new SmallRyeConfigBuilder()
                .withSources(new PropertiesConfigSource(values, "test", 500)).build();
        ConfigProviderResolver.setInstance(new SmallRyeConfigProviderResolver() {
            @Override
            public Config getConfig() {
                return config;
            }

            @Override
            public Config getConfig(ClassLoader loader) {
                return config;
            }
        });
    }

    private static JaxrsServer start(WeldContainer container) throws Exception {
        JaxrsServer.Setup setup = new JaxrsServer.Setup();
        setup.beforeStart = context -> context.addEventListener(Listener.using(container.getBeanManager()));
        return new JaxrsServer(new Jersey(), setup);
    }

    private static WeldContainer weld() {
        Weld weld = new Weld().disableDiscovery().addBeanClasses(CdiBeans.Stores.class);
        ServiceLoader.load(Extension.class).forEach(weld::addExtension);
        return weld.initialize();
    }

    @Test
    void theMethodKeyBeatsTheClassKeyWhichBeatsTheGlobalOne() throws Exception {
        smallRye(Map.of("RateLimit/value", "7/1h", LIMITED + "/RateLimit/value", "4/1h",
                LIMITED + "/b/RateLimit/value", "2/1h"));
        try (WeldContainer container = weld(); JaxrsServer server = start(container)) {
            server.client().get("/api/limited/a").then().statusCode(200)
                    .header("RateLimit-Policy", "\"Limited\";q=4;w=3600");
            server.client().get("/api/limited/c").then().statusCode(200)
                    .header("RateLimit-Policy", "\"Limited\";q=4;w=3600");
            server.client().get("/api/limited/b").then().statusCode(200)
                    .header("RateLimit-Policy", org.hamcrest.Matchers.endsWith(";q=2;w=3600"));
            server.client().get("/api/hello").then().statusCode(200)
                    .header("RateLimit-Policy", org.hamcrest.Matchers.nullValue());
        }
    }

    @Test
    void theGlobalKeyAppliesWhereNoNarrowerOneIsSet() throws Exception {
        smallRye(Map.of("RateLimit/value", "7/1h", "RateLimit/name", "everywhere"));
        try (WeldContainer container = weld(); JaxrsServer server = start(container)) {
            server.client().get("/api/limited/a").then().statusCode(200)
                    .header("RateLimit-Policy", "\"everywhere\";q=7;w=3600");
        }
    }

    @Test
    void enabledFalseTurnsTheLimitOffAtItsLevelAndANarrowerTrueBackOn() throws Exception {
        smallRye(Map.of("RateLimit/enabled", "true", LIMITED + "/RateLimit/enabled", "false",
                LIMITED + "/b/RateLimit/enabled", "true"));
        try (WeldContainer container = weld(); JaxrsServer server = start(container)) {
            server.client().get("/api/limited/a").then().statusCode(200)
                    .header("RateLimit-Policy", org.hamcrest.Matchers.nullValue());
            server.client().get("/api/limited/b").then().statusCode(200)
                    .header("RateLimit-Policy", org.hamcrest.Matchers.notNullValue());
        }
    }

    @Test
    void aGlobalEnabledFalseTurnsEveryAnnotationOff() throws Exception {
        smallRye(Map.of("RateLimit/enabled", "false"));
        try (WeldContainer container = weld(); JaxrsServer server = start(container)) {
            for (String path : new String[] {"/api/limited/a", "/api/limited/b", "/api/limited/c"}) {
                server.client().get(path).then().statusCode(200)
                        .header("RateLimit-Policy", org.hamcrest.Matchers.nullValue());
            }
        }
    }
}
