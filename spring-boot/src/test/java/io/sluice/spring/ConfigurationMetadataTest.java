package io.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The configuration metadata the starter ships ({@code META-INF/spring-configuration-metadata.json}, which IDEs read to
 * complete {@code sluice.*} in {@code application.properties} and {@code .yml}) is exactly what the parameter list of
 * {@code sluice-http} ({@code SluiceConfig.NAMES}, through {@link SpringParameters#names()}) and the parameter table of
 * docs/configuration.md give: a parameter added there and not here fails the build. To write it anew:
 * {@code mvn -pl spring-boot -am test -Dtest=ConfigurationMetadataTest -Dsluice.metadata.write=true}.
 */
class ConfigurationMetadataTest {

    private static final Path SHIPPED = Path.of("src/main/resources/META-INF/spring-configuration-metadata.json");
    private static final Path TABLE = Path.of("../docs/configuration.md");
    /** The starter's own parameters: their types and descriptions (docs/spring-boot.md says the same). */
    private static final Map<String, String[]> STARTER = Map.of(
            "enabled", new String[] {"java.lang.Boolean",
                    "Whether the starter registers Sluice at all (default true)."},
            "filter-order", new String[] {"java.lang.Integer", "The order of Sluice's servlet filter (default 0, after "
                    + "Spring Security's chain at -100, so that principal keys see the user)."},
            "readiness-on-store-failure", new String[] {"java.lang.String", "up (default): the sluice health indicator "
                    + "stays UP while the store fails, its details saying so; down: DOWN while the store fails."});

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
    static String generate() throws IOException {
        Map<String, String> documented = documented();
        StringBuilder json = new StringBuilder("{\n  \"groups\": [\n    {\n      \"name\": \"sluice\",\n"
                + "      \"description\": \"Sluice rate limiting: the parameters of docs/configuration.md.\"\n    }\n"
                + "  ],\n  \"properties\": [\n");
        List<String> names = SpringParameters.names();
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            String[] starter = STARTER.get(name);
            String description = starter != null ? starter[1] : documented.get(name);
            assertThat(description).as("docs/configuration.md describes parameter " + name).isNotNull();
            json.append("    {\n      \"name\": \"sluice.").append(name).append("\",\n      \"type\": \"")
                    .append(starter != null ? starter[0] : "java.lang.String").append("\",\n      \"description\": \"")
                    .append(escape(description)).append("\"\n    }").append(i + 1 < names.size() ? ",\n" : "\n");
        }
        return json.append("  ]\n}\n").toString();
    }

    /** @return each parameter of the table of docs/configuration.md: its default and meaning, as plain text */
    private static Map<String, String> documented() throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        Pattern row = Pattern.compile("^\\| `([a-z-]+)` \\| (.*?) \\| (.*) \\|$");
        for (String line : Files.readAllLines(TABLE, StandardCharsets.UTF_8)) {
            Matcher m = row.matcher(line);
            if (m.matches() && !out.containsKey(m.group(1))) {
                String meaning = plain(m.group(3));
                String byDefault = plain(m.group(2));
                out.put(m.group(1), meaning + (meaning.endsWith(".") ? "" : ".")
                        + (byDefault.equals("—") ? "" : " Default: " + byDefault + "."));
            }
        }
        return out;
    }

    /** @return Markdown as text: links as their text, no backticks, {@code \|} as {@code |} */
    private static String plain(String markdown) {
        return markdown.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1").replace("`", "").replace("\\|", "|").trim();
    }

    private static String escape(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"");
    }
}
