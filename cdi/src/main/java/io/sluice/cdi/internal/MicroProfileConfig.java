package io.sluice.cdi.internal;

import io.sluice.http.Parameters;
import java.util.function.Function;

/**
 * Adds MicroProfile Config to a front door's {@link Parameters} when the application has it: property
 * {@code sluice.limit} (with the front door's prefix) is read from {@code ConfigProvider.getConfig()}, after system
 * properties and environment variables and before the front door's own settings. Without MicroProfile Config on the
 * class path, or without an implementation of it, the parameters are returned unchanged and no MicroProfile class is
 * loaded: the only reference to one is in {@code MicroProfileLookup}, which is loaded only when the API is present.
 */
public final class MicroProfileConfig {

    /** How errors and the start-up log name this layer: {@value}. */
    public static final String LABEL = "MicroProfile Config";
    /** The API class looked for: {@value}. */
    static final String PROVIDER = "org.eclipse.microprofile.config.ConfigProvider";

    private MicroProfileConfig() {}

    /** @return {@code parameters} with MicroProfile Config as a layer when it is available, else {@code parameters} */
    public static Parameters addTo(Parameters parameters) {
        if (!present()) {
            return parameters;
        }
        Function<String, String> lookup = MicroProfileLookup.current();
        return lookup == null ? parameters : parameters.withConfig(lookup, LABEL);
    }

    /**
     * @return a lookup of the application's MicroProfile Config (the value of a property, or null when unset), or
     *     null when there is none: for the {@code @RateLimit} keys in the Fault Tolerance style
     */
    public static Function<String, String> lookup() {
        return present() ? MicroProfileLookup.current() : null;
    }

    /** @return whether the MicroProfile Config API can be loaded by Sluice's class loader */
    static boolean present() {
        try {
            Class.forName(PROVIDER, false, MicroProfileConfig.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
