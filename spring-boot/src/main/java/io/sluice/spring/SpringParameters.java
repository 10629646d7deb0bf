package io.sluice.spring;

import io.sluice.core.config.ConfigException;
import io.sluice.http.Parameters;
import io.sluice.http.RulesSource;
import io.sluice.http.SluiceConfig;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.Resource;
import org.springframework.core.io.ResourceLoader;

/**
 * Spring's {@code Environment} as a layer of Sluice's {@link Parameters}: property {@code sluice.limit} of
 * {@code application.properties} or {@code .yml}, a profile's file, or any other property source of the application,
 * read after system properties and environment variables (which the {@link Parameters} read first, as everywhere) and
 * checked by the same {@link SluiceConfig}. Spring Boot's relaxed binding applies: {@code sluice.trustedProxies} and
 * {@code sluice.trusted_proxies} are {@code sluice.trusted-proxies}.
 */
final class SpringParameters {

    /** How errors and the start-up log name this layer: {@value}. */
    static final String LABEL = "Spring Environment";
    /** The prefix of every property: {@value}. */
    static final String PREFIX = Parameters.DEFAULT_PREFIX + ".";
    /** The parameters of the starter itself, besides the front door's ({@link SluiceConfig#NAMES}). */
    static final List<String> STARTER_NAMES = List.of("enabled", "filter-order", "readiness-on-store-failure",
            AdminRole.PARAMETER);

    private SpringParameters() {}

    /** @return the parameters of {@code environment}: system properties, environment variables, then the Environment */
    static Parameters of(ConfigurableEnvironment environment) {
        return Parameters.of(Parameters.DEFAULT_PREFIX, Map.of(), LABEL).withConfig(environment::getProperty, LABEL);
    }

    /**
     * Refuses a {@code sluice.*} property of the application's own sources that is no parameter, as the servlet filter
     * refuses an unknown init-param; typos among system properties and environment variables are logged by
     * {@link SluiceConfig}, as everywhere.
     *
     * @throws ConfigException naming the property, its property source and the names expected
     */
    static void rejectUnknown(ConfigurableEnvironment environment) {
        Set<String> known = new LinkedHashSet<>();
        for (String name : names()) {
            known.add(uniform(name));
        }
        for (PropertySource<?> source : environment.getPropertySources()) {
            if (!(source instanceof EnumerablePropertySource<?> enumerable) || system(source.getName())) {
                continue;
            }
            for (String property : enumerable.getPropertyNames()) {
                if (property.toLowerCase(Locale.ROOT).startsWith(PREFIX)
                        && !known.contains(uniform(property.substring(PREFIX.length())))) {
                    throw new ConfigException(property + " (" + source.getName() + ")", property,
                            "unknown parameter; expected one of sluice." + String.join(", sluice.", names()));
                }
            }
        }
    }

    /** @return every parameter of the starter, in the order of {@link SluiceConfig#NAMES}, the starter's own last */
    static List<String> names() {
        List<String> names = new ArrayList<>(SluiceConfig.NAMES);
        names.remove("config-prefix");           // the servlet filter's init-param: the starter always reads sluice.*
        names.addAll(STARTER_NAMES);
        return names;
    }

    /** @return {@code name} as relaxed binding compares it: lower case, without {@code -}, {@code _} or {@code .} */
    private static String uniform(String name) {
        return name.toLowerCase(Locale.ROOT).replaceAll("[-_.\\[\\]]", "");
    }

    private static boolean system(String sourceName) {
        return sourceName.equals(StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME)
                || sourceName.equals(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME);
    }

    /**
     * @return how the starter reads {@code rules}: a Spring resource location ({@code classpath:sluice-rules.yml},
     *     {@code file:/etc/sluice/rules.yml}), or else a file path; a resource that is a file is reloaded when it
     *     changes, as a file path is; null for a resource that does not exist (the error names the parameter)
     */
    static Function<String, RulesSource> rulesSources(ResourceLoader resources) {
        Function<String, RulesSource> files = SluiceConfig.files();
        return value -> {
            if (!value.contains(":") || value.matches("[A-Za-z]:[\\\\/].*")) {        // a path, a Windows one too
                return files.apply(value);
            }
            Resource resource = resources.getResource(value);
            if (!resource.exists()) {
                return null;
            }
            try {
                return resource.isFile() ? RulesSource.file(resource.getFile().toPath())
                        : RulesSource.url(value, resource.getURL());
            } catch (IOException e) {
                return null;
            }
        };
    }
}
