package io.sluice.cdi.internal;

import io.sluice.http.ParameterSource;
import io.sluice.http.spi.IntegrationProvider;
import io.sluice.http.spi.RuntimeIntegration;
import java.util.List;

/**
 * CDI and MicroProfile Config for the front doors, found by them with {@link java.util.ServiceLoader}
 * ({@code META-INF/services/io.sluice.http.spi.IntegrationProvider}, {@code provides} in {@code module-info}): the
 * application's {@link SluiceBeans} when a CDI container runs with Sluice's extension, and MicroProfile Config as a
 * parameter source when the application has it.
 *
 * <p>This class names no CDI or MicroProfile type, so it loads on a plain servlet container: {@link #integration()}
 * loads the one class that touches CDI ({@code CdiLookup}) only after checking that {@value #CDI_CLASS} can be
 * loaded, and {@link MicroProfileConfig} does the same for MicroProfile Config.
 */
public final class CdiIntegrationProvider implements IntegrationProvider {

    /** The CDI class whose presence is checked before anything else of CDI is touched: {@value}. */
    public static final String CDI_CLASS = "jakarta.enterprise.inject.spi.CDI";

    /**
     * @return the application's beans, or null when CDI is not on the class path, no container is running, or Sluice's
     *     extension is not registered in it
     */
    @Override
    public RuntimeIntegration integration() {
        try {
            Class.forName(CDI_CLASS, false, CdiIntegrationProvider.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError absent) {
            return null;
        }
        return CdiLookup.find();
    }

    /** @return MicroProfile Config when the application has an implementation of it, else none */
    @Override
    public List<ParameterSource> parameterSources() {
        ParameterSource source = MicroProfileConfig.source();
        return source == null ? List.of() : List.of(source);
    }
}
