package io.sluice.cdi.internal;

import io.sluice.http.ParameterSource;
import io.sluice.http.Parameters;

/**
 * MicroProfile Config as a {@link ParameterSource} of the front doors when the application has it: property
 * {@code sluice.limit} (with the front door's prefix) is read from {@code ConfigProvider.getConfig()}, after system
 * properties and environment variables and before the front door's own settings. Without MicroProfile Config on the
 * class path, or without an implementation of it, there is no source and no MicroProfile class is loaded: the only
 * reference to one is in {@code MicroProfileLookup}, which is loaded only when the API is present.
 */
public final class MicroProfileConfig {

    /** How errors and the start-up log name this source: {@value}. */
    public static final String LABEL = "MicroProfile Config";
    /** The API class looked for: {@value}. */
    static final String PROVIDER = "org.eclipse.microprofile.config.ConfigProvider";

    private MicroProfileConfig() {}

    /**
     * @return the application's MicroProfile Config as a source (its {@link ParameterSource#names()} those of the
     *     configuration), or null when there is none
     */
    public static ParameterSource source() {
        return present() ? MicroProfileLookup.current() : null;
    }

    /** @return {@code parameters} with MicroProfile Config as a source when it is available, else {@code parameters} */
    public static Parameters addTo(Parameters parameters) {
        ParameterSource source = source();
        return source == null ? parameters : parameters.withSource(source);
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
