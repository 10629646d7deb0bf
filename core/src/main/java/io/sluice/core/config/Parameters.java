package io.sluice.core.config;

import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Configuration parameters from three layers, so one WAR runs unchanged in many environments. For parameter
 * {@code trusted-proxies} with prefix {@code sluice}, the first non-blank of:
 *
 * <ol>
 *   <li>system property {@code sluice.trusted-proxies}</li>
 *   <li>environment variable {@code SLUICE_TRUSTED_PROXIES} (upper case, {@code -} and {@code .} become {@code _})</li>
 *   <li>when added with {@link #withConfig}: a configuration service such as MicroProfile Config, property
 *       {@code sluice.trusted-proxies}</li>
 *   <li>the front door's own setting, such as the filter's {@code <init-param>trusted-proxies}</li>
 * </ol>
 *
 * The environment outranks the packaged configuration: operators override what the WAR ships with.
 */
public final class Parameters {

    /** The default prefix: {@value}. */
    public static final String DEFAULT_PREFIX = "sluice";

    private final String prefix;
    private final Function<String, String> systemProperties;
    private final Function<String, String> environment;
    private final Map<String, String> own;
    private final String ownLabel;
    private final Function<String, String> config;
    private final String configLabel;
    /** Whether the system properties and environment are the real ones, which can be listed. */
    private final boolean system;
    /** Whether the front door's own settings are named with the prefix ({@code sluice.limit}), as JAX-RS properties. */
    private final boolean ownPrefixed;

    private Parameters(String prefix, Function<String, String> systemProperties, Function<String, String> environment,
            Map<String, String> own, String ownLabel, Function<String, String> config, String configLabel,
            boolean system, boolean ownPrefixed) {
        this.prefix = prefix;
        this.systemProperties = systemProperties;
        this.environment = environment;
        this.own = Map.copyOf(own);
        this.ownLabel = ownLabel;
        this.config = config;
        this.configLabel = configLabel;
        this.system = system;
        this.ownPrefixed = ownPrefixed;
    }

    /**
     * @param prefix of system properties and environment variables, such as {@code sluice}
     * @param own the front door's settings (such as filter init parameters)
     * @param ownLabel how errors name them, such as {@code init-param}
     */
    public static Parameters of(String prefix, Map<String, String> own, String ownLabel) {
        Parameters p = of(prefix, System::getProperty, System::getenv, own, ownLabel);
        return new Parameters(p.prefix, p.systemProperties, p.environment, p.own, p.ownLabel, null, null, true, false);
    }

    /** {@link #of(String, Map, String)} with the system properties and environment given (for tests). */
    public static Parameters of(String prefix, Function<String, String> systemProperties,
            Function<String, String> environment, Map<String, String> own, String ownLabel) {
        if (prefix == null || !prefix.matches("[A-Za-z][A-Za-z0-9-]{0,31}")) {
            throw new ConfigException("config-prefix", prefix, "expected letters, digits or '-', such as \"sluice\"");
        }
        return new Parameters(prefix, systemProperties, environment, own, ownLabel, null, null, false, false);
    }

    /**
     * @param lookup a configuration service, asked for the property name ({@code sluice.limit}); consulted after the
     *     system properties and the environment, before the front door's own settings
     * @param label how errors name it, such as {@code MicroProfile Config}
     * @return these parameters with that layer added
     */
    public Parameters withConfig(Function<String, String> lookup, String label) {
        return new Parameters(prefix, systemProperties, environment, own, ownLabel, lookup, label, system, ownPrefixed);
    }

    /**
     * @return these parameters, with the front door's own settings named in messages as they are written, with the
     *     prefix: {@code sluice.limit (JAX-RS property)} rather than {@code limit (JAX-RS property)}
     */
    public Parameters ownNamedWithPrefix() {
        return new Parameters(prefix, systemProperties, environment, own, ownLabel, config, configLabel, system, true);
    }

    /** @return the value of {@code name} and where it came from, or null when no layer sets it */
    public Parameter get(String name) {
        String property = prefix + "." + name;
        String value = systemProperties.apply(property);
        if (!isBlank(value)) {
            return new Parameter(name, value.trim(), property + " (system property)");
        }
        String variable = environmentName(name);
        value = environment.apply(variable);
        if (!isBlank(value)) {
            return new Parameter(name, value.trim(), variable + " (environment variable)");
        }
        if (config != null) {
            value = config.apply(property);
            if (!isBlank(value)) {
                return new Parameter(name, value.trim(), property + " (" + configLabel + ")");
            }
        }
        value = own.get(name);
        if (!isBlank(value)) {
            return new Parameter(name, value.trim(), ownSource(name));
        }
        return null;
    }

    /** @return the names the front door's own settings use, to reject unknown ones */
    public Set<String> ownNames() {
        return own.keySet();
    }

    /** @return how errors name the front door's own setting {@code name}: {@code limit (init-param)} */
    public String ownSource(String name) {
        return (ownPrefixed ? propertyName(name) : name) + " (" + ownLabel + ")";
    }

    /**
     * @param known the parameter names
     * @return the system properties ({@code sluice.*}) and environment variables ({@code SLUICE_*}) of this prefix that
     *     name none of {@code known} (a typo such as {@code sluice.limt}), with their kind, sorted; none when the
     *     system properties and environment were given (tests)
     */
    public java.util.List<String> unknownOverrides(java.util.Collection<String> known) {
        if (!system) {
            return java.util.List.of();
        }
        Set<String> properties = new java.util.HashSet<>();
        Set<String> variables = new java.util.HashSet<>();
        for (String name : known) {
            properties.add(propertyName(name));
            variables.add(environmentName(name));
        }
        java.util.List<String> unknown = new java.util.ArrayList<>();
        String propertyPrefix = prefix + ".";
        for (String name : System.getProperties().stringPropertyNames()) {
            if (name.startsWith(propertyPrefix) && !properties.contains(name)) {
                unknown.add(name + " (system property)");
            }
        }
        String variablePrefix = environmentName("");
        for (String name : System.getenv().keySet()) {
            if (name.startsWith(variablePrefix) && !variables.contains(name)) {
                unknown.add(name + " (environment variable)");
            }
        }
        java.util.Collections.sort(unknown);
        return unknown;
    }

    /** @return the environment variable of parameter {@code name}: {@code SLUICE_TRUSTED_PROXIES} */
    public String environmentName(String name) {
        return (prefix + "_" + name).toUpperCase(Locale.ROOT).replace('-', '_').replace('.', '_');
    }

    /** @return the system property of parameter {@code name}: {@code sluice.trusted-proxies} */
    public String propertyName(String name) {
        return prefix + "." + name;
    }

    private static boolean isBlank(String s) {
        return s == null || s.isBlank();
    }

    /**
     * One parameter's value.
     *
     * @param name the parameter, such as {@code limit}
     * @param value the value, trimmed, never blank
     * @param source where it came from, as errors name it: {@code sluice.limit (system property)},
     *     {@code SLUICE_LIMIT (environment variable)} or {@code limit (init-param)}
     */
    public record Parameter(String name, String value, String source) {}
}
