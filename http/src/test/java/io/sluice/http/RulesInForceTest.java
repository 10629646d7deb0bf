package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.Rule;
import io.sluice.core.config.ConfigException;
import io.sluice.core.store.SharedDocument;
import io.sluice.core.testing.ManualTimeSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rules in force as the local rules and the shared rules document make them: each change composed with what the
 * other put in force, checked as a reload is, and told to listeners; a refused one changes nothing.
 */
class RulesInForceTest {

    @TempDir
    Path dir;

    private final ManualTimeSource time = new ManualTimeSource();
    private final List<Consumer<RuleSet>> checks = new CopyOnWriteArrayList<>();
    /** The names of the rules before and after each change the listeners heard of. */
    private final List<String> told = new ArrayList<>();
    private Path file;
    private long mtime = 1_700_000_000_000L;

    private void write(String yaml) throws IOException {
        Files.writeString(file, yaml);
        mtime += 1_000;            // a new modification time, set explicitly: no waiting for the clock to tick
        Files.setLastModifiedTime(file, FileTime.fromMillis(mtime));
    }

    private RulesInForce withFile(String yaml) throws IOException {
        file = dir.resolve("rules.yaml");
        write(yaml);
        return open(Map.of("limit", "50/1m", "rules", file.toString(), "reload-interval", "10s"));
    }

    private RulesInForce open(Map<String, String> parameters) {
        SluiceConfig config = SluiceConfig.load(Parameters.of("sluice", parameters, "test"), SluiceConfig.files());
        return new RulesInForce(config, time, checks, (before, after) -> told.add(before.names() + " -> " + after.names()));
    }

    private static SharedDocument document(long version, String yaml) {
        return new SharedDocument(version, yaml, "alice", 1);
    }

    private static Map<String, String> limits(RuleSet rules) {
        Map<String, String> out = new HashMap<>();
        rules.rules().forEach(r -> out.put(r.name(), r.policy().toString()));
        return out;
    }

    @Test
    void aReloadedFileKeepsTheDocumentsRulesOnTop() throws IOException {
        RulesInForce rules = withFile("rules: [{name: api, limit: 100/1m}, {name: login, limit: 5/1m}]");
        rules.apply(document(1, "rules: [{name: api, limit: 2/1m}, {name: extra, limit: 1/1m}]"));
        assertThat(rules.get().names()).containsExactly("per-ip", "api", "login", "extra");

        write("rules: [{name: api, limit: 500/1m}, {name: late, limit: 9/1m}]");
        time.advance(Duration.ofSeconds(10));

        assertThat(rules.get().names()).containsExactly("per-ip", "api", "late", "extra");
        assertThat(limits(rules.get())).containsEntry("api", "2/1m (gcra)").containsEntry("late", "9/1m (gcra)");
        assertThat(rules.origins()).containsExactly(Map.entry("per-ip", RuleOrigin.PARAMETER),
                Map.entry("api", RuleOrigin.DOCUMENT), Map.entry("late", RuleOrigin.FILE),
                Map.entry("extra", RuleOrigin.DOCUMENT));
        assertThat(told).containsExactly("[per-ip, api, login] -> [per-ip, api, login, extra]",
                "[per-ip, api, login, extra] -> [per-ip, api, late, extra]");
    }

    @Test
    void aDocumentIsComposedWithTheFilesRulesInForceAndItsRemovalLeavesThemAlone() throws IOException {
        RulesInForce rules = withFile("rules: [{name: api, limit: 100/1m}]");
        write("rules: [{name: api, limit: 300/1m}, {name: reports, limit: 3/1m}]");
        time.advance(Duration.ofSeconds(10));
        rules.get();                                // reloads

        rules.apply(document(1, "rules: [{name: reports, limit: 1/1m}]"));
        assertThat(limits(rules.get())).containsEntry("api", "300/1m (gcra)").containsEntry("reports", "1/1m (gcra)");

        rules.apply(SharedDocument.NONE);
        assertThat(limits(rules.get())).containsEntry("api", "300/1m (gcra)").containsEntry("reports", "3/1m (gcra)");
        assertThat(rules.origins().values()).doesNotContain(RuleOrigin.DOCUMENT);
        rules.apply(new SharedDocument(2, null, "bob", 2));       // a removed document: the same
        assertThat(rules.get().names()).containsExactly("per-ip", "api", "reports");
    }

    @Test
    void aDocumentThatTheReloadChecksRefuseIsRefusedAndTheRulesStay() throws IOException {
        RulesInForce rules = withFile("rules: [{name: api, limit: 100/1m}]");
        checks.add(next -> next.rules().stream().filter(r -> r.name().equals("api")).forEach(r -> {
            if (!r.policy().algorithm().id().equals("gcra")) {      // as the JAX-RS filter's check of annotations
                throw new ConfigException("rule \"api\".algorithm", r.policy().algorithm().id(), "expected gcra");
            }
        }));
        String refused = "rules: [{name: api, limit: 2/1m, algorithm: fixed-window}]";
        RuleSet before = rules.get();

        assertThatThrownBy(() -> rules.check(refused)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("expected gcra");
        assertThatThrownBy(() -> rules.apply(document(1, refused))).isInstanceOf(ConfigException.class);

        assertThat(rules.get()).isSameAs(before);
        assertThat(told).isEmpty();
        rules.check("rules: [{name: api, limit: 2/1m}]");        // the same algorithm passes
    }

    @Test
    void aFileReloadThatTheDocumentMakesFailTheChecksKeepsTheRulesInForce() throws IOException {
        RulesInForce rules = withFile("rules: [{name: api, limit: 100/1m}]");
        checks.add(next -> {
            if (next.names().containsAll(List.of("late", "shared"))) {
                throw new ConfigException("late and shared cannot be in force together");
            }
        });
        rules.apply(document(1, "rules: [{name: shared, limit: 1/1m}]"));
        write("rules: [{name: api, limit: 100/1m}, {name: late, limit: 9/1m}]");
        time.advance(Duration.ofSeconds(10));

        assertThat(rules.get().names()).as("the combination was checked, and refused").containsExactly("per-ip", "api",
                "shared");
        rules.apply(document(2, "rules: [{name: shared2, limit: 1/1m}]"));
        assertThat(rules.get().names()).as("the file's rules in force are the base: late is not")
                .containsExactly("per-ip", "api", "shared2");

        time.advance(Duration.ofSeconds(10));
        assertThat(rules.get().names()).as("the refused version of the file, read again: it passes now")
                .containsExactly("per-ip", "api", "late", "shared2");
    }

    @Test
    void anInvalidDocumentIsNamedInTheError() throws IOException {
        RulesInForce rules = withFile("rules: []");
        assertThatThrownBy(() -> rules.check("rules: [{name: api, limit: 100 per hour}]"))
                .isInstanceOf(ConfigException.class).hasMessageStartingWith("shared rules document: rules[0] (api).limit");
        assertThatThrownBy(() -> rules.check("rules: [{name: t, key: tenant, limit: 1/1m}]"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("tenant");
        assertThatThrownBy(() -> rules.check("rules: [{name: per-ip, limit: 1/1m}, {name: per-ip, limit: 2/1m}]"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("unique");
    }

    @Test
    void withoutAFileTheDocumentLayersOverParameterLimitsRule() {
        RulesInForce rules = open(Map.of("limit", "50/1m", "shadow", "true"));
        rules.apply(document(1, "rules: [{name: per-ip, limit: 5/1m}, {name: api, limit: 1/1m}]"));

        assertThat(limits(rules.get())).containsOnly(Map.entry("per-ip", "5/1m (gcra)"), Map.entry("api", "1/1m (gcra)"));
        assertThat(rules.get().rules()).allMatch(Rule::shadow);
        assertThat(rules.origins().values()).containsExactly(RuleOrigin.DOCUMENT, RuleOrigin.DOCUMENT);

        rules.apply(SharedDocument.NONE);
        assertThat(limits(rules.get())).containsOnly(Map.entry("per-ip", "50/1m (gcra)"));
        assertThat(told).containsExactly("[per-ip] -> [per-ip, api]", "[per-ip, api] -> [per-ip]");
    }
}
