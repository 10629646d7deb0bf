package io.sluice.jaxrs;

import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigValue;
import org.eclipse.microprofile.config.spi.ConfigBuilder;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;
import org.eclipse.microprofile.config.spi.ConfigSource;
import org.eclipse.microprofile.config.spi.Converter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** MicroProfile Config, when the application has an implementation: {@code sluice.*} properties configure Sluice. */
class MicroProfileConfigIT {

    @AfterEach
    void removeTheImplementation() {
        ConfigProviderResolver.setInstance(null);
    }

    @Test
    void sluicePropertiesOfMicroProfileConfigConfigureTheJaxrsSide() throws Exception {
        ConfigProviderResolver.setInstance(new MapResolver(Map.of("sluice.limit", "1/1h", "sluice.name", "from-mp")));
        try (JaxrsServer server = new JaxrsServer(new Jersey(), new JaxrsServer.Setup().featureByClass())) {
            server.client().get("/api/hello").then().statusCode(200).header("RateLimit-Policy", "\"from-mp\";q=1;w=3600");
            server.client().get("/api/hello").then().statusCode(429);
        }
    }

    @Test
    void microProfileConfigOutranksJaxrsProperties() throws Exception {
        ConfigProviderResolver.setInstance(new MapResolver(Map.of("sluice.limit", "2/1h")));
        JaxrsServer.Setup setup = new JaxrsServer.Setup().featureByClass().property("sluice.limit", "50/1h");
        try (JaxrsServer server = new JaxrsServer(new Jersey(), setup)) {
            server.client().get("/api/hello").then().statusCode(200).header("RateLimit-Policy", "\"per-ip\";q=2;w=3600");
        }
    }

    /** The smallest MicroProfile Config implementation: one map. */
    private static final class MapResolver extends ConfigProviderResolver {
        private final Config config;

        MapResolver(Map<String, String> values) {
            this.config = new MapConfig(values);
        }

        @Override
        public Config getConfig() {
            return config;
        }

        @Override
        public Config getConfig(ClassLoader loader) {
            return config;
        }

        @Override
        public ConfigBuilder getBuilder() {
            throw new UnsupportedOperationException("not needed by the test");
        }

        @Override
        public void registerConfig(Config c, ClassLoader loader) {
            throw new UnsupportedOperationException("not needed by the test");
        }

        @Override
        public void releaseConfig(Config c) {
            throw new UnsupportedOperationException("not needed by the test");
        }
    }

    private record MapConfig(Map<String, String> values) implements Config {
        @Override
        public <T> T getValue(String name, Class<T> type) {
            return getOptionalValue(name, type).orElseThrow(() -> new NoSuchElementException(name));
        }

        @Override
        public ConfigValue getConfigValue(String name) {
            throw new UnsupportedOperationException("not needed by the test");
        }

        @Override
        public <T> Optional<T> getOptionalValue(String name, Class<T> type) {
            return Optional.ofNullable(values.get(name)).map(type::cast);
        }

        @Override
        public Iterable<String> getPropertyNames() {
            return values.keySet();
        }

        @Override
        public Iterable<ConfigSource> getConfigSources() {
            return List.of();
        }

        @Override
        public <T> Optional<Converter<T>> getConverter(Class<T> type) {
            return Optional.empty();
        }

        @Override
        public <T> T unwrap(Class<T> type) {
            throw new IllegalArgumentException("not needed by the test");
        }
    }
}
