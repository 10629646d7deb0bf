package io.sluice.cdi.internal;

import io.sluice.core.config.ConfigException;
import io.sluice.http.ParameterSource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.ServiceConfigurationError;
import java.util.function.Function;

/**
 * The one class that touches MicroProfile Config; used only when {@link MicroProfileConfig#present()}. It reaches the
 * API's three methods ({@code ConfigProvider.getConfig()}, {@code Config.getOptionalValue(name, String.class)},
 * {@code Config.getPropertyNames()}) by
 * reflection: the API's jar declares no module name (no {@code module-info}, no {@code Automatic-Module-Name}), so a
 * {@code requires} of it would name a module after a file name, which a module path need not give it (and which the
 * build warns of).
 */
final class MicroProfileLookup {

    private static final System.Logger LOG = System.getLogger(MicroProfileConfig.class.getName());
    private static final String CONFIG = "org.eclipse.microprofile.config.Config";

    private MicroProfileLookup() {}

    /** @return the application's configuration as a source, or null when the API has no implementation */
    static ParameterSource current() {
        Object config;
        try {
            config = Class.forName(MicroProfileConfig.PROVIDER, true, MicroProfileLookup.class.getClassLoader())
                    .getMethod("getConfig").invoke(null);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof IllegalStateException || e.getCause() instanceof ServiceConfigurationError) {
                LOG.log(System.Logger.Level.DEBUG, "MicroProfile Config API without an implementation; not used");
                return null;
            }
            throw new ConfigException("MicroProfile Config: ConfigProvider.getConfig() failed: " + e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new ConfigException("MicroProfile Config: not an API of version 1 to 3: " + e);
        }
        return ParameterSource.of(MicroProfileConfig.LABEL, of(config), () -> names(config));
    }

    /**
     * @return the property names of {@code config} (an {@code org.eclipse.microprofile.config.Config}); none when it
     *     cannot list them
     */
    static Set<String> names(Object config) {
        Set<String> names = new HashSet<>();
        try {
            Object all = Class.forName(CONFIG, false, MicroProfileLookup.class.getClassLoader())
                    .getMethod("getPropertyNames").invoke(config);
            for (Object name : (Iterable<?>) all) {
                names.add(String.valueOf(name));
            }
        } catch (ReflectiveOperationException | RuntimeException e) {     // names only serve warnings of typos
            LOG.log(System.Logger.Level.DEBUG, "MicroProfile Config: property names not listed: " + e);
        }
        return names;
    }

    /** @return a lookup of {@code config} (an {@code org.eclipse.microprofile.config.Config}): the value, or null */
    static Function<String, String> of(Object config) {
        Method getOptionalValue;
        try {
            getOptionalValue = Class.forName(CONFIG, false, MicroProfileLookup.class.getClassLoader())
                    .getMethod("getOptionalValue", String.class, Class.class);
        } catch (ReflectiveOperationException e) {
            throw new ConfigException("MicroProfile Config: not an API of version 1 to 3: " + e);
        }
        return name -> {
            try {
                return ((Optional<?>) getOptionalValue.invoke(config, name, String.class)).map(String.class::cast)
                        .orElse(null);
            } catch (InvocationTargetException e) {  // an expression that cannot be expanded (${missing}), a bad source
                throw new ConfigException(name + " (MicroProfile Config): cannot be read: "
                        + e.getCause().getMessage());
            } catch (IllegalAccessException e) {
                throw new ConfigException(name + " (MicroProfile Config): cannot be read: " + e);
            }
        };
    }
}
