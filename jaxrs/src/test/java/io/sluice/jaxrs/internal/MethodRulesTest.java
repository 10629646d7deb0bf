package io.sluice.jaxrs.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.Rule;
import io.sluice.http.Allowlist;
import io.sluice.core.config.ConfigException;
import io.sluice.http.RuleSet;
import io.sluice.core.key.ClientIpResolver;
import io.sluice.jaxrs.AnnotatedRules;
import io.sluice.jaxrs.RateLimit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MethodRulesTest {

    private static final ClientIpResolver IPS = ClientIpResolver.trusting(List.of(), ClientIpResolver.Header.X_FORWARDED_FOR);
    private static final RuleSet NO_RULES = new RuleSet(List.of(), Allowlist.NONE);

    @RateLimit("100/1h")
    @RateLimit(name = "burst", value = "10/1s", key = "principal")
    static class Api {
        void plain() {}

        @RateLimit("5/1m")
        @RateLimit("50/1h")
        void twoOwn() {}

        @RateLimit(name = "burst", value = "2/1s", key = "principal", cost = 3)
        void overridesBurst() {}

        @RateLimit(rule = "exports", cost = 2)
        void references() {}

        @RateLimit(value = "1/1s", rule = "exports")
        void referenceWithLimit() {}

        @RateLimit(name = "x", value = "1/1s")
        @RateLimit(name = "x", value = "2/1s")
        void sameNameTwice() {}

        @RateLimit(key = "tenant", value = "1/1s")
        void customKey() {}
    }

    private static MethodRules of(String method) throws NoSuchMethodException {
        return AnnotatedRules.of(Api.class, Api.class.getDeclaredMethod(method), IPS, Map.of());
    }

    private static List<String> names(MethodRules rules) {
        return rules.resolve(NO_RULES).stream().map(Rule::name).toList();
    }

    @Test
    void aMethodWithoutAnnotationsHasItsClassRules() throws Exception {
        assertThat(names(of("plain"))).containsExactly("Api", "burst");
    }

    @Test
    void unnamedAnnotationsOfOneMethodAreNumbered() throws Exception {
        assertThat(names(of("twoOwn"))).containsExactly("Api", "burst", "Api.twoOwn", "Api.twoOwn-2");
    }

    @Test
    void aMethodAnnotationReplacesTheClassAnnotationOfItsName() throws Exception {
        List<Rule> rules = of("overridesBurst").resolve(NO_RULES);
        assertThat(rules).extracting(Rule::name).containsExactly("Api", "burst");
        assertThat(rules.get(1).policy().limit()).isEqualTo(2);
        assertThat(rules.get(1).cost()).isEqualTo(3);
    }

    @Test
    void aReferenceTakesTheRuleOfTheFileWithTheAnnotatedCostOnEveryPath() throws Exception {
        Rule exports = Rule.builder("exports").policy("3/1h")
                .matcher(request -> false).build();                      // its paths match nothing
        List<Rule> rules = of("references").resolve(new RuleSet(List.of(exports), Allowlist.NONE));
        assertThat(rules).extracting(Rule::name).containsExactly("Api", "burst", "exports");
        assertThat(rules.get(2).cost()).isEqualTo(2);
        assertThat(rules.get(2).matcher().matches(io.sluice.core.request.RequestView.builder("GET", "/any").build())).isTrue();
    }

    @Test
    void aReferenceToAnUnknownRuleStopsStartUp() throws Exception {
        assertThatThrownBy(() -> of("references").checkReferences(NO_RULES)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("expected the name of a rule of the rules file").hasMessageContaining("\"exports\"");
    }

    @Test
    void aReferenceWithItsOwnLimitIsAnError() {
        assertThatThrownBy(() -> of("referenceWithLimit")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("Api.referenceWithLimit").hasMessageContaining("expected only \"cost\"");
    }

    @Test
    void twoAnnotationsOfOneNameAtOneLevelAreAnError() {
        assertThatThrownBy(() -> of("sameNameTwice")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("expected one annotation per rule name");
    }

    @Test
    void aKeyNamedAfterAProducedResolverUsesIt() throws Exception {
        MethodRules rules = AnnotatedRules.of(Api.class, Api.class.getDeclaredMethod("customKey"), IPS,
                Map.of("tenant", request -> "acme"));
        Rule rule = rules.resolve(NO_RULES).get(2);
        assertThat(rule.key().resolve(io.sluice.core.request.RequestView.builder("GET", "/").build())).isEqualTo("acme");
        assertThatThrownBy(() -> of("customKey")).isInstanceOf(ConfigException.class).hasMessageContaining("got \"tenant\"");
    }

    @Test
    void aProducedResolverThatThrowsCountsTheRequestPerClient() throws Exception {
        MethodRules rules = AnnotatedRules.of(Api.class, Api.class.getDeclaredMethod("customKey"), IPS,
                Map.of("tenant", request -> {
                    throw new IllegalStateException("no tenant");
                }));
        Rule rule = rules.resolve(NO_RULES).get(2);
        assertThat(rule.resolveKey(io.sluice.core.request.RequestView.builder("GET", "/").remoteAddress("198.51.100.7").build()))
                .isEqualTo(Rule.FAILED_KEY + "|198.51.100.7");
    }
}
