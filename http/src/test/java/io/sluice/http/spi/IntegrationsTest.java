package io.sluice.http.spi;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.testing.LogCapture;
import io.sluice.http.ParameterSource;
import io.sluice.http.Parameters;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The front doors' search for runtime integrations, through a real {@link java.util.ServiceLoader} over a class
 * loader whose services file names providers.
 */
class IntegrationsTest {

    /** A runtime without an integration of its own, bringing one parameter source. */
    public static final class SourceOnly implements IntegrationProvider {
        @Override
        public RuntimeIntegration integration() {
            return null;
        }

        @Override
        public List<ParameterSource> parameterSources() {
            return List.of(ParameterSource.of("Test Config",
                    Map.of("sluice.limit", "7/s", "A/RateLimit/value", "3/s")::get));
        }
    }

    @TempDir
    Path services;

    private Integrations findWith(String... providers) throws Exception {
        Path file = services.resolve("META-INF/services/" + IntegrationProvider.class.getName());
        Files.createDirectories(file.getParent());
        Files.writeString(file, String.join("\n", providers) + "\n");
        Thread thread = Thread.currentThread();
        ClassLoader before = thread.getContextClassLoader();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {services.toUri().toURL()},
                IntegrationsTest.class.getClassLoader())) {
            thread.setContextClassLoader(loader);
            return Integrations.find();
        } finally {
            thread.setContextClassLoader(before);
        }
    }

    @Test
    void theContextClassLoadersProvidersAreFoundAndTheirSourcesLayered() throws Exception {
        Integrations found = findWith(SourceOnly.class.getName());

        assertThat(found.providers()).singleElement().isInstanceOf(SourceOnly.class);
        assertThat(found.integration()).isNull();
        Parameters p = found.addSources(Parameters.of("sluice", name -> null, name -> null, Map.of("limit", "1/s"),
                "init-param"));
        assertThat(p.get("limit")).isEqualTo(new Parameters.Parameter("limit", "7/s", "sluice.limit (Test Config)"));
        assertThat(found.lookup().apply("A/RateLimit/value")).isEqualTo("3/s");
        assertThat(found.lookup().apply("B/RateLimit/value")).isNull();
    }

    @Test
    void aProviderThatCannotBeUsedIsLoggedAndSkipped() throws Exception {
        try (LogCapture log = new LogCapture(Integrations.class.getName())) {
            Integrations found = findWith(IntegrationsTest.class.getName(), "com.example.Missing",
                    SourceOnly.class.getName());     // a class that is no provider, as another copy of Sluice's is

            assertThat(found.providers()).singleElement().isInstanceOf(SourceOnly.class);
            assertThat(log.messages()).hasSize(2).allMatch(m -> m.contains("a runtime integration is ignored"))
                    .anyMatch(m -> m.contains(IntegrationsTest.class.getName() + " not a subtype"));
        }
    }
}
