package io.sluice.http;

import io.sluice.core.config.ConfigException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * Configuration parameters from three layers, so one WAR runs unchanged in many environments. For parameter
 * {@code trusted-proxies} with prefix {@code sluice}, the first non-blank of:
 *
 * <ol>
 *   <li>system property {@code sluice.trusted-proxies}</li>
 *   <li>environment variable {@code SLUICE_TRUSTED_PROXIES} (upper case, {@code -} and {@code .} become {@code _})</li>
 *   <li>each {@link ParameterSource} added with {@link #withSource}, in the order added: a runtime's configuration
 *       such as MicroProfile Config, property {@code sluice.trusted-proxies}</li>
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
    /** The runtime's sources, in the order they are asked. */
    private final List<ParameterSource> sources;
    /** Whether the system properties and environment are the real ones, which can be listed. */
    private final boolean system;
    /** Whether the front door's own settings are named with the prefix ({@code sluice.limit}), as JAX-RS properties. */
    private final boolean ownPrefixed;
    /** Where own settings set by {@link #withOwn} came from, by name: they are named so, not by {@link #ownLabel}. */
    private final Map<String, String> ownSources;

    private Parameters(String prefix, Function<String, String> systemProperties, Function<String, String> environment,
            Map<String, String> own, String ownLabel, List<ParameterSource> sources,
            boolean system, boolean ownPrefixed) {
        this(prefix, systemProperties, environment, own, ownLabel, sources, system, ownPrefixed, Map.of());
    }

    private Parameters(String prefix, Function<String, String> systemProperties, Function<String, String> environment,
            Map<String, String> own, String ownLabel, List<ParameterSource> sources,
            boolean system, boolean ownPrefixed, Map<String, String> ownSources) {
        this.prefix = prefix;
        this.systemProperties = systemProperties;
        this.environment = environment;
        this.own = Map.copyOf(own);
        this.ownLabel = ownLabel;
        this.sources = List.copyOf(sources);
        this.system = system;
        this.ownPrefixed = ownPrefixed;
        this.ownSources = Map.copyOf(ownSources);
    }

    /**
     * @param prefix of system properties and environment variables, such as {@code sluice}
     * @param own the front door's settings (such as filter init parameters)
     * @param ownLabel how errors name them, such as {@code init-param}
     */
    public static Parameters of(String prefix, Map<String, String> own, String ownLabel) {
        return new Parameters(checked(prefix), System::getProperty, System::getenv, own, ownLabel, List.of(), true,
                false);
    }

    /** {@link #of(String, Map, String)} with the system properties and environment given (for tests). */
    public static Parameters of(String prefix, Function<String, String> systemProperties,
            Function<String, String> environment, Map<String, String> own, String ownLabel) {
        return new Parameters(checked(prefix), systemProperties, environment, own, ownLabel, List.of(), false, false);
    }

    private static String checked(String prefix) {
        if (prefix == null || !prefix.matches("[A-Za-z][A-Za-z0-9-]{0,31}")) {
            throw new ConfigException("config-prefix", prefix, "expected letters, digits or '-', such as \"sluice\"");
        }
        return prefix;
    }

    /**
     * @param source a runtime's configuration, asked for the property name ({@code sluice.limit}); consulted after the
     *     system properties, the environment and the sources added before it, before the front door's own settings
     * @return these parameters with that layer added
     */
    public Parameters withSource(ParameterSource source) {
        if (source == null) {
            throw new IllegalArgumentException("source is required");
        }
        List<ParameterSource> more = new ArrayList<>(sources);
        more.add(source);
        return new Parameters(prefix, systemProperties, environment, own, ownLabel, more, system, ownPrefixed,
                ownSources);
    }

    /**
     * {@link #withSource} of {@link ParameterSource#of(String, Function) ParameterSource.of(label, lookup)}.
     *
     * @param lookup a configuration service, asked for the property name ({@code sluice.limit})
     * @param label how errors name it, such as {@code MicroProfile Config}
     * @return these parameters with that layer added
     */
    public Parameters withConfig(Function<String, String> lookup, String label) {
        return withSource(ParameterSource.of(label, lookup));
    }

    /** @return the sources added with {@link #withSource}, in the order they are asked */
    public List<ParameterSource> sources() {
        return sources;
    }

    /**
     * @return these parameters, with the front door's own settings named in messages as they are written, with the
     *     prefix: {@code sluice.limit (JAX-RS property)} rather than {@code limit (JAX-RS property)}
     */
    public Parameters ownNamedWithPrefix() {
        return new Parameters(prefix, systemProperties, environment, own, ownLabel, sources, system, true,
                ownSources);
    }

    /**
     * For an application that derives one of the front door's own settings from somewhere else, such as the demo's
     * {@code store} from its environment variable {@code SLUICE_REDIS_URL}: the setting keeps its rank (the system
     * properties, the environment and a configuration service still win), and messages and the start-up description
     * name where it really came from.
     *
     * @param name the parameter, such as {@code store}
     * @param value its value, replacing the front door's own setting of {@code name}
     * @param source how messages name it, such as {@code SLUICE_REDIS_URL (environment variable)}
     * @return these parameters with that own setting
     */
    public Parameters withOwn(String name, String value, String source) {
        Map<String, String> changed = new HashMap<>(own);
        changed.put(name, value);
        Map<String, String> derived = new HashMap<>(ownSources);
        derived.put(name, source);
        return new Parameters(prefix, systemProperties, environment, changed, ownLabel, sources, system,
                ownPrefixed, derived);
    }

    /**
     * A front door's own setting that an application derives from somewhere else, with how messages name that place:
     * as the value of a JAX-RS property {@code sluice.<name>}, it is read as {@link #withOwn} reads it.
     *
     * @param value the setting, such as a Redis URL
     * @param source how messages name where it came from, such as {@code SLUICE_REDIS_URL (environment variable)}
     */
    public record Sourced(String value, String source) {

        public Sourced {
            if (value == null || source == null) {
                throw new IllegalArgumentException("value and source are required");
            }
        }

        /** @return the value: what a reader that knows nothing of sources reads */
        @Override
        public String toString() {
            return value;
        }
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
        for (ParameterSource source : sources) {
            value = source.value(property);
            if (!isBlank(value)) {
                return new Parameter(name, value.trim(), property + " (" + source.label() + ")");
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
        String derived = ownSources.get(name);
        if (derived != null) {
            return derived;
        }
        return (ownPrefixed ? propertyName(name) : name) + " (" + ownLabel + ")";
    }

    /**
     * The typos among the system properties ({@code sluice.*}), environment variables ({@code SLUICE_*}) and the names
     * each {@link ParameterSource} lists, of this prefix: names that are no parameter of {@code read} but nearly one
     * ({@code sluice.limt}, {@code SLUICE_TRUSTED_PROXY}). Other names of the prefix are left alone: another program's
     * {@code SLUICE_REDIS_URL}, or the variables Kubernetes defines for a service named {@code sluice}.
     *
     * @param read the parameters read from system properties, the environment and the sources
     * @return each such name with its kind and the parameter it resembles, sorted; none among the system properties
     *     and the environment when they were given (tests)
     */
    public List<String> misspeltOverrides(Collection<String> read) {
        List<String> found = new ArrayList<>();
        if (system) {
            typos(System.getProperties().stringPropertyNames(), prefix + ".", this::propertyName, "system property",
                    read, found);
            typos(System.getenv().keySet(), environmentName(""), this::environmentName, "environment variable", read,
                    found);
        }
        for (ParameterSource source : sources) {
            typos(source.names(), prefix + ".", this::propertyName, source.label(), read, found);
        }
        Collections.sort(found);
        return found;
    }

    /**
     * Adds to {@code found} each of {@code names} that starts with {@code namePrefix} and nearly spells, but is not,
     * the name ({@code spell}) of one of {@code read}.
     */
    private static void typos(Set<String> names, String namePrefix, UnaryOperator<String> spell,
            String kind, Collection<String> read, List<String> found) {
        for (String name : names) {
            if (name.startsWith(namePrefix)) {
                nearest(name.substring(namePrefix.length()), read).filter(n -> !spell.apply(n).equals(name))
                        .ifPresent(n -> found.add(name + " (" + kind + ") is not a parameter; did you mean "
                                + spell.apply(n) + "?"));
            }
        }
    }

    /** @return the parameter {@code rest} (a name after the prefix, any case, {@code _} for {@code -}) nearly spells */
    private static Optional<String> nearest(String rest, Collection<String> names) {
        String r = rest.toLowerCase(Locale.ROOT).replace('_', '-').replace('.', '-');
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String name : names) {
            int d = distance(r, name);
            if (d <= Math.max(1, Math.min(3, name.length() / 4)) && d < bestDistance) {
                best = name;
                bestDistance = d;
            }
        }
        return Optional.ofNullable(best);
    }

    /** @return the Levenshtein distance of two short strings (at most 64 characters of each are compared) */
    static int distance(String a, String b) {
        String x = a.length() > 64 ? a.substring(0, 64) : a;
        String y = b.length() > 64 ? b.substring(0, 64) : b;
        int[] previous = new int[y.length() + 1];
        int[] current = new int[y.length() + 1];
        for (int j = 0; j <= y.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= x.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= y.length(); j++) {
                int substitute = previous[j - 1] + (x.charAt(i - 1) == y.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitute, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] t = previous;
            previous = current;
            current = t;
        }
        return previous[y.length()];
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
