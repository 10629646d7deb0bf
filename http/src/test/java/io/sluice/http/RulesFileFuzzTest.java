package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.config.ConfigException;
import io.sluice.core.key.Cidr;
import io.sluice.core.key.ClientIpResolver;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.GenerationMode;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;

/**
 * Hostile rules files, 100,000 cases: the parser either succeeds or fails with a {@link ConfigException} naming the
 * file (which the front doors turn into a start-up message, never a 500). Core's {@code FuzzTest} covers the limit
 * notation and request data.
 */
class RulesFileFuzzTest {

    private static final ClientIpResolver BEHIND_PROXY = ClientIpResolver.trusting(
            List.of(Cidr.parse("trusted-proxies", "10.0.0.0/8")), ClientIpResolver.Header.X_FORWARDED_FOR);

    @Property(tries = 100_000, generation = GenerationMode.RANDOMIZED, shrinking = ShrinkingMode.BOUNDED)
    void theRulesFileParsesOrFailsWithAConfigException(@ForAll("rulesFiles") String yaml) {
        try {
            RulesFile.parse("rules.yaml", yaml, BEHIND_PROXY);
        } catch (ConfigException e) {
            assertThat(e.getMessage()).contains("rules.yaml");
        }
    }

    @Provide
    Arbitrary<String> rulesFiles() {
        Arbitrary<String> lines = Arbitraries.of("rules:", "- name: a", "  name: b", "  limit: 10/1m", "  limit: x",
                "  key: ip", "  key: header:X-Api-Key", "  paths: [/api/**]", "  methods: [GET, POST]", "  cost: 2",
                "  cost: -1", "  mode: shadow", "  mode: loud", "  on-store-failure: local", "  tiers:", "    by: attribute:plan",
                "    free: 100/1h", "    pro: 10000/1h", "allowlist:", "  - 10.0.0.0/8", "  - 300.1.1.1/99", "defaults:",
                "  algorithm: token-bucket", "  algorithm: nope", "- [", "{", "}", ": :", "  - ", "rules: []", "rules: 5",
                "&a [*a]", "!!java.lang.Runtime {}", "\t", "   ", "---", "...", "key: \"\\u0000\"");
        return Arbitraries.oneOf(
                lines.list().ofMaxSize(12).map(l -> String.join("\n", l)),
                Arbitraries.strings().ofMaxLength(120));
    }
}
