package io.sluice.cdi.internal;

import io.sluice.core.config.ConfigException;
import java.util.ServiceConfigurationError;
import java.util.function.Function;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/** The one class that touches MicroProfile Config; loaded only when {@link MicroProfileConfig#present()}. */
final class MicroProfileLookup {

    private static final System.Logger LOG = System.getLogger(MicroProfileConfig.class.getName());

    private MicroProfileLookup() {}

    /** @return a lookup of the application's configuration, or null when the API has no implementation */
    static Function<String, String> current() {
        Config config;
        try {
            config = ConfigProvider.getConfig();
        } catch (IllegalStateException | ServiceConfigurationError noImplementation) {
            LOG.log(System.Logger.Level.DEBUG, "MicroProfile Config API without an implementation; not used");
            return null;
        }
        return of(config);
    }

    /** @return a lookup of {@code config}: the property's value, or null when unset */
    static Function<String, String> of(Config config) {
        return name -> {
            try {
                return config.getOptionalValue(name, String.class).orElse(null);
            } catch (RuntimeException e) {       // an expression that cannot be expanded (${missing}), a bad source
                throw new ConfigException(name + " (MicroProfile Config): cannot be read: " + e.getMessage());
            }
        };
    }
}
