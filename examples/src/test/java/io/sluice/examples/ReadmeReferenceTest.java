package io.sluice.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.config.ConfigException;
import io.sluice.core.policy.Policy;
import io.sluice.http.ParameterCatalog;
import io.sluice.http.RulesFile;
import io.sluice.http.SluiceConfig;
import io.sluice.core.key.ClientIpResolver;
import io.sluice.jaxrs.RateLimit;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The reference tables of docs/configuration.md ("## Reference") list exactly the names the code accepts: every
 * parameter of the front doors, every rules-file field, every {@code @RateLimit} attribute. A name added to the code
 * and not to the reference, or left there after the code dropped it, fails here. Every example of the limit notation's
 * table parses.
 */
class ReadmeReferenceTest {

    private static final Path REFERENCE = Path.of("..", "docs", "configuration.md");
    private static final Pattern CODE = Pattern.compile("`([^`]+)`");
    private static final Pattern EXPECTED_FIELDS = Pattern.compile("expected one of \\[([^\\]]*)\\]");

    @Test
    void everyParameterIsListedAndEveryListedParameterIsAccepted() throws IOException {
        assertThat(firstColumn("### Every parameter")).containsExactlyInAnyOrderElementsOf(SluiceConfig.NAMES)
                .containsExactlyElementsOf(ParameterCatalog.names());
    }

    /**
     * The table of parameters and {@link ParameterCatalog} agree on each default: a default the catalogue gives is the
     * table's, written as code ({@code `10s`}); one it has none of (or derives) is not a plain value there. A parameter
     * that a front door does not read says so ({@code config-prefix}: init-param only).
     */
    @Test
    void everyParameterIsListedWithTheCataloguesDefault() throws IOException {
        Map<String, String[]> rows = rows("### Every parameter");
        for (ParameterCatalog.Entry e : ParameterCatalog.entries()) {
            String[] row = rows.get("`" + e.name() + "`");
            assertThat(row).as("a row for %s", e.name()).isNotNull();
            if (e.defaultValue() != null) {
                assertThat(row[1]).as("the default of %s", e.name()).isEqualTo("`" + e.defaultValue() + "`");
            } else {
                assertThat(row[1]).as("%s has no default of its own", e.name()).doesNotMatch("`[^`]*`");
            }
            if (!e.jaxrs()) {
                assertThat(row[2]).as("%s is no JAX-RS property", e.name()).contains("init-param only");
            }
        }
    }

    @Test
    void everyRulesFileFieldIsListedAndEveryListedFieldIsAccepted() throws IOException {
        Set<String> accepted = new TreeSet<>();
        accepted.addAll(fieldsAt("", "bogus: 1\nrules: []"));
        accepted.addAll(fieldsAt("defaults.", "defaults: {bogus: 1}\nrules: []"));
        accepted.addAll(fieldsAt("allowlist.", "allowlist: {bogus: 1}\nrules: []"));
        accepted.addAll(fieldsAt("rules[].", "rules: [{name: r, limit: 1/s, bogus: 1}]"));
        accepted.addAll(fieldsAt("rules[].tiers.", "rules: [{name: r, limit: 1/s, tiers: {bogus: 1}}]"));

        assertThat(accepted).contains("rules", "rules[].limit", "rules[].tiers.by", "defaults.key", "allowlist.keys");
        assertThat(firstColumn("### Every rules-file field")).containsExactlyInAnyOrderElementsOf(accepted);
    }

    @Test
    void everyRateLimitAttributeIsListedAndEveryListedAttributeExists() throws IOException {
        List<String> attributes = Arrays.stream(RateLimit.class.getDeclaredMethods()).map(Method::getName).toList();

        assertThat(attributes).contains("value", "key", "rule");
        assertThat(firstColumn("### Every @RateLimit attribute")).containsExactlyInAnyOrderElementsOf(attributes);
    }

    @Test
    void everyExampleOfTheLimitNotationParses() throws IOException {
        List<String> lines = Files.readAllLines(REFERENCE);
        int start = lines.indexOf("## The limit notation");
        assertThat(start).as("docs/configuration.md has a \"## The limit notation\" section").isNotNegative();
        List<String> examples = new java.util.ArrayList<>();
        for (String line : lines.subList(start + 1, lines.size())) {
            if (line.startsWith("#")) {
                break;
            }
            if (line.startsWith("| `")) {
                Matcher code = CODE.matcher(line.substring(1, line.indexOf('|', 1)));
                assertThat(code.find()).isTrue();
                examples.add(code.group(1));
            }
        }
        assertThat(examples).contains("100/1m", "20 concurrent").hasSizeGreaterThan(5);
        for (String notation : examples) {
            assertThat(Policy.parse(notation)).as(notation).isNotNull();
        }
    }

    /**
     * Issue 30: {@code 10/sec} was accepted while the docs named only {@code ms}, {@code s}, {@code m}, {@code h} and
     * {@code d}. The unit table lists exactly the spellings the parser accepts (which its error for an unknown unit
     * lists), each for its unit, in any case.
     */
    @Test
    void theUnitTableListsExactlyTheSpellingsTheParserAccepts() throws IOException {
        Map<String, Duration> units = Map.of("millisecond", Duration.ofMillis(1), "second", Duration.ofSeconds(1),
                "minute", Duration.ofMinutes(1), "hour", Duration.ofHours(1), "day", Duration.ofDays(1));
        Map<String, Duration> documented = new LinkedHashMap<>();
        List<String> lines = Files.readAllLines(REFERENCE);
        int table = lines.indexOf("| unit | spellings |");
        assertThat(table).as("docs/configuration.md has a \"| unit | spellings |\" table").isNotNegative();
        for (String row : lines.subList(table + 2, lines.size())) {
            if (!row.startsWith("|")) {
                break;
            }
            String[] cells = row.split("\\|");
            Duration unit = units.get(cells[1].strip());
            assertThat(unit).as("a unit: %s", row).isNotNull();
            Matcher code = CODE.matcher(cells[2]);
            while (code.find()) {
                documented.put(code.group(1), unit);
            }
        }
        Set<String> accepted = new TreeSet<>();
        assertThatThrownBy(() -> Policy.parse("100/1w")).isInstanceOf(ConfigException.class).satisfies(e -> {
            Matcher m = Pattern.compile("\\(units: ([^)]*)\\)").matcher(e.getMessage());
            assertThat(m.find()).as("the unknown unit is named with the accepted ones: %s", e.getMessage()).isTrue();
            accepted.addAll(Arrays.asList(m.group(1).split("[,;]\\s*")));
        });

        assertThat(documented.keySet()).containsExactlyInAnyOrderElementsOf(accepted);
        for (Map.Entry<String, Duration> u : documented.entrySet()) {
            for (String spelling : List.of(u.getKey(), u.getKey().toUpperCase(Locale.ROOT))) {
                if (!spelling.equals("M")) {            // refused: minutes or months?
                    assertThat(Policy.parse("3/2" + spelling).periodMicros()).as(spelling)
                            .isEqualTo(u.getValue().multipliedBy(2).toNanos() / 1_000);
                }
            }
        }
    }

    /** @return the names the rules file accepts at one level, from its error for an unknown field there */
    private static Set<String> fieldsAt(String prefix, String yaml) {
        ClientIpResolver ips = ClientIpResolver.trusting(List.of(), ClientIpResolver.Header.X_FORWARDED_FOR);
        Set<String> fields = new TreeSet<>();
        assertThatThrownBy(() -> RulesFile.parse("sluice-rules.yaml", yaml, ips)).isInstanceOf(ConfigException.class)
                .satisfies(e -> {
                    Matcher m = EXPECTED_FIELDS.matcher(e.getMessage());
                    assertThat(m.find()).as("the unknown field is named with the accepted ones: %s", e.getMessage())
                            .isTrue();
                    for (String field : m.group(1).split(",\\s*")) {
                        fields.add(prefix + field);
                    }
                });
        return fields;
    }

    /** @return the cells of each row of the table under {@code heading} in the Reference, by its first cell */
    private static Map<String, String[]> rows(String heading) throws IOException {
        List<String> lines = Files.readAllLines(REFERENCE);
        int reference = lines.indexOf("## Reference");
        int start = reference + lines.subList(reference, lines.size()).indexOf(heading);
        Map<String, String[]> rows = new LinkedHashMap<>();
        int table = start + 1;
        while (!lines.get(table).startsWith("|")) {
            table++;
        }
        for (String line : lines.subList(table + 2, lines.size())) {     // past the header row and its rule
            if (!line.startsWith("|")) {
                break;
            }
            String[] cells = Arrays.stream(line.substring(1).split("(?<!\\\\)\\|")).map(String::strip)
                    .toArray(String[]::new);
            rows.put(cells[0], cells);
        }
        return rows;
    }

    /** @return every {@code `name`} in the first column of the table under {@code heading} in the Reference */
    private static Set<String> firstColumn(String heading) throws IOException {
        List<String> lines = Files.readAllLines(REFERENCE);
        int reference = lines.indexOf("## Reference");
        assertThat(reference).as("docs/configuration.md has a \"## Reference\" section").isNotNegative();
        int start = lines.subList(reference, lines.size()).indexOf(heading);
        assertThat(start).as("the Reference has a heading %s", heading).isNotNegative();
        Set<String> names = new LinkedHashSet<>();
        boolean header = true;
        for (String line : lines.subList(reference + start + 1, lines.size())) {
            if (line.startsWith("#")) {
                break;
            }
            if (!line.startsWith("|")) {
                continue;
            }
            if (header || line.startsWith("|---")) {   // the header row and its rule
                header = false;
                continue;
            }
            String firstCell = line.substring(1, line.indexOf('|', 1));
            Matcher code = CODE.matcher(firstCell);
            while (code.find()) {
                names.add(code.group(1));
            }
        }
        assertThat(names).as("names in the table under %s", heading).isNotEmpty();
        return names;
    }
}
