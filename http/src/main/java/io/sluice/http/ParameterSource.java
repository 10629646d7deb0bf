package io.sluice.http;

import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A place parameters come from that a runtime brings: MicroProfile Config, Spring's {@code Environment}, Quarkus'
 * configuration. {@link Parameters} asks each source added with {@link Parameters#withSource} for property
 * {@code sluice.limit} (the prefix, a dot, the parameter), after the system properties and the environment and before
 * the front door's own settings, in the order the sources were added; the value found is parsed and checked as every
 * other source's is, and errors name it {@code sluice.limit (<label>)}.
 *
 * <p>Adding a runtime adds a source: the names, the parsing, the validation and the error text stay
 * {@link SluiceConfig}'s; {@link ParameterCatalog} lists the names.
 */
public interface ParameterSource {

    /** @return how errors and the start-up log name this source, such as {@code MicroProfile Config} */
    String label();

    /**
     * @param property a property name, such as {@code sluice.limit}
     * @return its value, or null when this source does not set it
     * @throws io.sluice.core.config.ConfigException when the source has the property but cannot give its value
     */
    String value(String property);

    /**
     * @return the property names this source holds, when it can list them: those of the prefix that nearly spell a
     *     parameter ({@code sluice.limt}) are logged as warnings at start-up. Empty (the default) when it cannot list
     *     them
     */
    default Set<String> names() {
        return Set.of();
    }

    /**
     * @param label how errors name the source
     * @param lookup a property's value, or null when unset
     * @return a source that cannot list its names
     */
    static ParameterSource of(String label, Function<String, String> lookup) {
        return of(label, lookup, Set::of);
    }

    /**
     * @param label how errors name the source
     * @param lookup a property's value, or null when unset
     * @param names the property names it holds, asked at start-up
     * @return a source that lists its names
     */
    static ParameterSource of(String label, Function<String, String> lookup, Supplier<Set<String>> names) {
        if (label == null || label.isBlank() || lookup == null || names == null) {
            throw new IllegalArgumentException("label, lookup and names are required");
        }
        return new ParameterSource() {
            @Override
            public String label() {
                return label;
            }

            @Override
            public String value(String property) {
                return lookup.apply(property);
            }

            @Override
            public Set<String> names() {
                return names.get();
            }

            @Override
            public String toString() {
                return label;
            }
        };
    }
}
