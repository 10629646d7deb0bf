package io.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.http.ParameterCatalog;
import io.sluice.http.ParameterCatalog.Entry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The configuration metadata the starter ships ({@code META-INF/spring-configuration-metadata.json}, which IDEs read to
 * complete {@code sluice.*} in {@code application.properties} and {@code .yml}) is exactly what the parameter list of
 * {@code sluice-http} gives ({@link ParameterCatalog}: names, descriptions, defaults; the starter's own three named
 * here), the same catalogue that docs/configuration.md is checked against: a parameter added there and not here fails
 * the build. To write it anew:
 * {@code mvn -pl spring-boot -am test -Dtest=ConfigurationMetadataTest -Dsluice.metadata.write=true}.
 */
class ConfigurationMetadataTest {

    private static final Path SHIPPED = Path.of("src/main/resources/META-INF/spring-configuration-metadata.json");
    /** The starter's own parameters: their types and descriptions (docs/spring-boot.md says the same). */
    private static final Map<String, String[]> STARTER = Map.of(
            "enabled", new String[] {"java.lang.Boolean",
                    "Whether the starter registers Sluice at all (default true)."},
            "filter-order", new String[] {"java.lang.Integer", "The order of Sluice's servlet filter (default 0, after "
                    + "Spring Security's chain at -100, so that principal keys see the user)."},
            "readiness-on-store-failure", new String[] {"java.lang.String", "up (default): the sluice health indicator "
                    + "stays UP while the store fails, its details saying so; down: DOWN while the store fails."},
            "admin-role", new String[] {"java.lang.String", "The role a caller of /actuator/sluice needs to inspect "
                    + "and reset keys (default sluice-admin; with Spring Security, authority ROLE_sluice-admin)."});

    @Test
    void shippedMetadataIsTheParameterList() throws IOException {
        String expected = generate();
        if (Boolean.getBoolean("sluice.metadata.write")) {
            Files.writeString(SHIPPED, expected, StandardCharsets.UTF_8);
        }
        assertThat(Files.readString(SHIPPED, StandardCharsets.UTF_8)).as("run with -Dsluice.metadata.write=true to "
                + "write it from the parameter list").isEqualTo(expected);
    }

    /** @return the metadata of every parameter of {@link SpringParameters#names()}, in that order */
    static String generate() {
        StringBuilder json = new StringBuilder("{\n  \"groups\": [\n    {\n      \"name\": \"sluice\",\n"
                + "      \"description\": \"Sluice rate limiting: the parameters of docs/configuration.md.\"\n    }\n"
                + "  ],\n  \"properties\": [\n");
        List<String> names = SpringParameters.names();
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            String[] starter = STARTER.get(name);
            Optional<Entry> entry = ParameterCatalog.find(name);
            assertThat(starter != null || entry.isPresent()).as("ParameterCatalog describes parameter " + name)
                    .isTrue();
            String description = starter != null ? starter[1] : described(entry.get());
            json.append("    {\n      \"name\": \"sluice.").append(name).append("\",\n      \"type\": \"")
                    .append(starter != null ? starter[0] : "java.lang.String").append("\",\n      \"description\": \"")
                    .append(escape(description)).append("\"\n    }").append(i + 1 < names.size() ? ",\n" : "\n");
        }
        return json.append("  ]\n}\n").toString();
    }

    /** @return the catalogue's description of a parameter, its default (where it has a fixed one) said last */
    private static String described(Entry entry) {
        String meaning = entry.description().trim();
        return meaning + (meaning.endsWith(".") ? "" : ".")
                + (entry.defaultValue() == null ? "" : " Default: " + entry.defaultValue() + ".");
    }

    private static String escape(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"");
    }
}
