package io.sluice.http.spi;

import io.sluice.http.ParameterSource;
import java.util.List;

/**
 * A runtime module's entry point, found with {@link java.util.ServiceLoader}: listed in
 * {@code META-INF/services/io.sluice.http.spi.IntegrationProvider} (and {@code provides} in its {@code module-info}).
 * {@code sluice-cdi} provides CDI and MicroProfile Config this way; without it on the class path the front doors find
 * none and read their own parameters.
 *
 * <p>An implementation has a public no-argument constructor and names no type of its framework in its signature: it
 * is loaded on containers that lack the framework, and must then answer null and an empty list rather than fail.
 */
public interface IntegrationProvider {

    /**
     * @return the application's integration, or null when the framework is not on the class path, is not running, or
     *     does not know this module
     */
    RuntimeIntegration integration();

    /**
     * @return the configuration sources the runtime brings, in the order they are asked: layered by
     *     {@link Integrations#addSources} after system properties and environment variables, before the front door's
     *     own settings. None by default
     */
    default List<ParameterSource> parameterSources() {
        return List.of();
    }
}
