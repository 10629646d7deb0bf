package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.Rule;
import io.sluice.core.config.ConfigException;
import io.sluice.core.key.ClientIpResolver;
import io.sluice.core.request.RequestView;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The precedence of the layers of rules: parameter {@code limit}, the rules file, the shared rules document. */
class SharedRulesTest {

    private static SluiceConfig config(Map<String, String> parameters) {
        return SluiceConfig.loadWithoutRules(Parameters.of("sluice", parameters, "test"), SluiceConfig.files());
    }

    private static RuleSet parse(String yaml) {
        return RulesFile.parse("rules.yaml", yaml, ClientIpResolver.direct());
    }

    private static Map<String, String> limits(RuleSet rules) {
        Map<String, String> out = new LinkedHashMap<>();
        rules.rules().forEach(r -> out.put(r.name(), r.policy().toString()));
        return out;
    }

    private static final RuleSet FILE = parse("""
            rules:
              - {name: login, paths: [/login], limit: 5/1m}
              - {name: api, paths: [/api/**], limit: 100/1m}
              - {name: search, paths: [/search], limit: 10/1m}
            """);

    @Test
    void aDocumentRuleReplacesTheLocalRuleOfItsNameInItsPlaceAndNewOnesComeAfterInTheDocumentsOrder() {
        RuleSet document = parse("""
                rules:
                  - {name: zeta, limit: 1/1m}
                  - {name: api, paths: [/api/**], limit: 2/1m}
                  - {name: alpha, limit: 3/1m}
                  - {name: per-ip, limit: 7/1m}
                """);
        RuleSet composed = SharedRules.compose(config(Map.of("limit", "50/1m")), FILE, document, false);

        assertThat(composed.names()).containsExactly("per-ip", "login", "api", "search", "zeta", "alpha");
        assertThat(composed.rules().get(0).policy()).isEqualTo(document.rules().get(3).policy());
        assertThat(composed.rules().get(2).policy()).as("the document's api").isEqualTo(document.rules().get(1).policy());
        assertThat(composed.rules().get(1).policy()).as("the file's login").isEqualTo(FILE.rules().get(0).policy());
        assertThat(SharedRules.origins(composed.names(), config(Map.of("limit", "50/1m")), document))
                .containsExactly(Map.entry("per-ip", RuleOrigin.DOCUMENT), Map.entry("login", RuleOrigin.FILE),
                        Map.entry("api", RuleOrigin.DOCUMENT), Map.entry("search", RuleOrigin.FILE),
                        Map.entry("zeta", RuleOrigin.DOCUMENT), Map.entry("alpha", RuleOrigin.DOCUMENT));
    }

    @Test
    void withoutADocumentTheLocalRulesAreInForceAsBefore() {
        SluiceConfig config = config(Map.of("limit", "50/1m"));
        RuleSet composed = SharedRules.compose(config, FILE, null, false);

        assertThat(limits(composed)).containsExactly(Map.entry("per-ip", "50/1m (gcra)"),
                Map.entry("login", "5/1m (gcra)"), Map.entry("api", "100/1m (gcra)"), Map.entry("search", "10/1m (gcra)"));
        assertThat(SharedRules.origins(composed.names(), config, null).values()).containsExactly(RuleOrigin.PARAMETER,
                RuleOrigin.FILE, RuleOrigin.FILE, RuleOrigin.FILE);
        assertThatThrownBy(() -> SharedRules.compose(config, parse("rules: [{name: per-ip, limit: 1/1m}]"), null, false))
                .isInstanceOf(ConfigException.class).hasMessageContaining("distinct from the rule of parameter");
    }

    @Test
    void allowlistsAreMergedFromEveryLayer() {
        RuleSet file = parse("""
                allowlist: {addresses: [10.0.0.0/8], keys: [file-key]}
                rules: [{name: api, key: 'header:X-Api-Key', limit: 1/1m}]
                """);
        RuleSet document = parse("""
                allowlist: {addresses: [192.168.0.0/16], keys: [document-key]}
                rules: []
                """);
        RuleSet composed = SharedRules.compose(config(Map.of("allowlist-addresses", "172.16.0.0/12",
                "allowlist-keys", "parameter-key")), file, document, false);

        for (String address : List.of("10.1.2.3", "192.168.1.1", "172.16.0.9")) {
            assertThat(composed.allowlist().containsAddress(address)).as(address).isTrue();
        }
        assertThat(composed.allowlist().containsAddress("203.0.113.9")).isFalse();
        assertThat(composed.allowlist().keys()).contains("file-key", "document-key", "parameter-key");
        Rule api = composed.rules().get(0);
        for (String key : List.of("file-key", "document-key", "parameter-key")) {
            RequestView request = RequestView.builder("GET", "/").remoteAddress("203.0.113.9").header("X-Api-Key", key)
                    .build();
            assertThat(api.matcher().matches(request)).as("%s skips the rule", key).isFalse();
        }
    }

    @Test
    void parameterShadowStillPutsTheDocumentsRulesInShadowMode() {
        RuleSet document = parse("rules: [{name: api, limit: 1/1m, mode: enforce}]");
        RuleSet composed = SharedRules.compose(config(Map.of("shadow", "true")), FILE, document, false);

        assertThat(composed.rules()).allMatch(Rule::shadow);
        assertThat(SharedRules.compose(config(Map.of()), FILE, document, false).rules()).noneMatch(Rule::shadow);
    }

    @Test
    void aDocumentRuleReplacesTheEnqueueModeOfTheLocalRuleOfItsName() {
        RuleSet file = parse("rules: [{name: a, limit: 1/1m, enqueue: qa}, {name: b, limit: 1/1m, enqueue: qb}]");
        RuleSet document = parse("rules: [{name: a, limit: 2/1m}, {name: c, limit: 1/1m, enqueue: qc}]");
        RuleSet composed = SharedRules.compose(config(Map.of()), file, document, false);
        assertThat(composed.enqueue()).containsOnly(Map.entry("b", "qb"), Map.entry("c", "qc"));
        assertThat(SharedRules.compose(config(Map.of()), file, null, false).enqueue())
                .containsOnly(Map.entry("a", "qa"), Map.entry("b", "qb"));
    }
}
