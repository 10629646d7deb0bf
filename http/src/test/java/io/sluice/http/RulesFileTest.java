package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.config.ConfigException;
import io.sluice.core.policy.Algorithm;
import io.sluice.core.request.RequestView;
import io.sluice.core.Rule;
import io.sluice.core.key.ClientIpResolver;
import org.junit.jupiter.api.Test;

class RulesFileTest {

    private static RuleSet parse(String yaml) {
        return RulesFile.parse("rules.yaml", yaml, ClientIpResolver.direct());
    }

    private static void fails(String yaml, String message) {
        assertThatThrownBy(() -> parse(yaml)).isInstanceOf(ConfigException.class).hasMessage(message);
    }

    @Test
    void aCompleteFileBuildsEveryRuleWithItsFields() {
        RuleSet set = parse("""
                defaults:
                  key: header:X-Api-Key
                  on-store-failure: local
                allowlist:
                  addresses: [10.0.0.0/8, "2001:db8::/32"]
                  keys: [monitoring]
                rules:
                  - name: login
                    paths: [/login]
                    methods: [post]
                    key: ip
                    limit: 5/1m
                    algorithm: sliding-log
                    cost: 2
                    mode: shadow
                    on-store-failure: deny
                    on-missing-key: anonymous
                  - name: api
                    paths: /api/**
                    limit: 100/1h
                    tiers:
                      by: attribute:plan
                      policies:
                        free: 100/1h
                        pro: 10000/1h
                """);

        Rule login = set.rules().get(0);
        assertThat(set.names()).containsExactly("login", "api");
        assertThat(set.summary()).as("for the start-up log").isEqualTo("[login, api (tiers by attribute:plan: free, "
                + "pro)], allowlist: 2 address blocks, 1 key");
        assertThat(login.key()).hasToString("ip");
        assertThat(login.policy().algorithm()).isEqualTo(Algorithm.SLIDING_LOG);
        assertThat(login.policy().limit()).isEqualTo(5);
        assertThat(login.cost()).isEqualTo(2);
        assertThat(login.shadow()).isTrue();
        assertThat(login.onStoreFailure()).isEqualTo(Rule.FailureMode.DENY);
        assertThat(login.onMissingKey()).isEqualTo(Rule.MissingKey.ANONYMOUS);
        assertThat(login.matcher().matches(RequestView.builder("POST", "/login").build())).isTrue();
        assertThat(login.matcher().matches(RequestView.builder("GET", "/login").build())).isFalse();

        Rule api = set.rules().get(1);
        assertThat(api.key()).as("from defaults").hasToString("header:X-Api-Key");
        assertThat(api.onStoreFailure()).as("from defaults").isEqualTo(Rule.FailureMode.LOCAL);
        assertThat(api.mode()).isEqualTo(Rule.Mode.ENFORCE);
        assertThat(api.cost()).isEqualTo(1);
        assertThat(api.matcher().matches(RequestView.builder("GET", "/api/v1/x").build())).isTrue();
        RequestView pro = RequestView.builder("GET", "/api").attribute("plan", "pro").build();
        RequestView unknownTier = RequestView.builder("GET", "/api").attribute("plan", "gold").build();
        assertThat(api.policyFor(pro).limit()).isEqualTo(10_000);
        assertThat(api.policyFor(unknownTier).limit()).as("the rule's limit").isEqualTo(100);
        Rule hashTier = parse("rules: [{name: t, limit: 1/1h, tiers: {by: 'header:X-Plan', policies: {'#vip': 7/1h}}}]")
                .rules().get(0);
        assertThat(hashTier.policyFor(RequestView.builder("GET", "/").header("X-Plan", "#vip").build()).limit())
                .as("a tier name is looked up in the form the selector gives").isEqualTo(7);

        assertThat(set.allowlist().containsAddress("10.9.9.9")).isTrue();
        assertThat(set.allowlist().containsAddress("2001:db8::5")).isTrue();
        assertThat(set.allowlist().containsAddress("192.0.2.1")).isFalse();
        assertThat(set.allowlist().keys()).containsExactly("monitoring");
    }

    @Test
    void aMinimalRuleTakesTheDefaults() {
        Rule rule = parse("rules: [{name: site, limit: 10/s}]").rules().get(0);

        assertThat(rule.key()).hasToString("ip");
        assertThat(rule.policy().algorithm()).isEqualTo(Algorithm.GCRA);
        assertThat(rule.matcher().matches(RequestView.builder("DELETE", "/anything").build())).isTrue();
        assertThat(rule.onStoreFailure()).isEqualTo(Rule.FailureMode.ALLOW);
        assertThat(rule.onMissingKey()).isEqualTo(Rule.MissingKey.SKIP);
        assertThat(parse("rules: []").rules()).isEmpty();
    }

    @Test
    void allowlistedKeysAreSkippedByTheRule() {
        RuleSet set = parse("""
                allowlist: {keys: [monitoring]}
                rules: [{name: api, key: "header:X-Api-Key", limit: 10/s}]
                """);
        Rule rule = set.allowlist().applyTo(set.rules().get(0));

        assertThat(rule.matcher().matches(RequestView.builder("GET", "/").header("X-Api-Key", "monitoring").build())).isFalse();
        assertThat(rule.matcher().matches(RequestView.builder("GET", "/").header("X-Api-Key", "other").build())).isTrue();

        String longKey = "sk_live_" + "0123456789abcdef".repeat(5);       // over 64 characters: resolved as its hash
        Rule withLongKey = parse("allowlist: {keys: [\" " + longKey + " \"]}\n"
                + "rules: [{name: api, key: \"header:X-Api-Key\", limit: 10/s}]").allowlist().applyTo(rule);
        assertThat(withLongKey.matcher().matches(RequestView.builder("GET", "/").header("X-Api-Key", longKey).build()))
                .as("a long allowlisted key matches the hashed key the resolver gives").isFalse();

        Rule combined = parse("allowlist: {keys: [\"k%1|x\"]}\n"
                + "rules: [{name: api, key: \"header:A+header:B\", limit: 10/s}]").allowlist().applyTo(
                parse("rules: [{name: api, key: \"header:A+header:B\", limit: 10/s}]").rules().get(0));
        assertThat(combined.matcher().matches(RequestView.builder("GET", "/").header("A", "k%1").header("B", "x").build()))
                .as("the parts of a combination, escaped as the resolver joins them").isFalse();
        assertThat(rule.matcher().matches(RequestView.builder("GET", "/").build())).as("no key: the rule decides").isTrue();
    }

    @Test
    void plainValuesAreReadAsWrittenNotAsYaml11Numbers() {
        RuleSet set = parse("""
                rules:
                  - name: 010
                    limit: 5/1m
                    methods: [GET]
                    tiers: {by: 'header:X-Plan', policies: {0123: 7/1m, yes: 8/1m, '1:30': 9/1m}}
                allowlist:
                  keys: [12:30, 1.50]
                """);
        Rule rule = set.rules().get(0);
        assertThat(rule.name()).as("not the octal 8").isEqualTo("010");
        RuleSet merged = parse("""
                rules:
                  - &base {name: a, limit: 5/1m, key: 'header:X-Api-Key'}
                  - {<<: *base, name: b}
                """);
        assertThat(merged.rules().get(1).key()).as("YAML merge keys still work").hasToString("header:X-Api-Key");
        assertThat(merged.rules().get(1).name()).isEqualTo("b");
        assertThat(rule.tiers().policies()).containsOnlyKeys("0123", "yes", "1:30");
        assertThat(set.allowlist().keys()).contains("12:30", "1.50");
    }

    @Test
    void explicitYamlTagsWithBadValuesAreConfigurationErrors() {
        assertThatThrownBy(() -> parse("rules: [{name: a, limit: 1/s, cost: !!int abc}]")).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("rules.yaml: not valid YAML: ");
        assertThatThrownBy(() -> parse("rules: [{name: a, limit: !!binary '@@@'}]")).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("rules.yaml: not valid YAML: ");
        assertThatThrownBy(() -> parse("rules: [{name: a, limit: 1/s, paths: ['/" + "*".repeat(2_000) + "']}]"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("rules.yaml: rules[0] (a).paths: expected a path pattern starting with '/', of at"
                        + " most 1000 characters");
    }

    @Test
    void aTierOfAnotherAlgorithmThanItsRuleIsRefused() {
        fails("rules: [{name: api, limit: 5/1m, tiers: {by: 'header:X-Plan', policies: {free: 5/1m min-interval 1s}}}]",
                "rules.yaml: rules[0] (api).tiers.policies.free: expected a limit of the rule's algorithm, gcra, not "
                        + "sliding-log: a rule's tiers count in one state per key, which only one algorithm can read (a "
                        + "client switching tier would start afresh), got \"5/1m min-interval 1s\"");
        fails("rules: [{name: api, limit: 5/1m, tiers: {by: 'header:X-Plan', policies: {free: 5 concurrent}}}]",
                "rules.yaml: rules[0] (api).tiers.policies.free: expected a limit of the rule's algorithm, gcra, not "
                        + "concurrency: a rule's tiers count in one state per key, which only one algorithm can read (a "
                        + "client switching tier would start afresh), got \"5 concurrent\"");
        assertThat(parse("rules: [{name: api, limit: 5/1m, algorithm: fixed-window, tiers: {by: 'header:X-Plan', "
                + "policies: {pro: 500/1m}}}]").rules().get(0).tiers().policies()).hasSize(1);
        assertThatThrownBy(() -> io.sluice.core.Rule.builder("api").policy("5/1m")
                .tiers(new io.sluice.core.Rule.Tiers(r -> "free", java.util.Map.of("free", io.sluice.core.policy.Policy.parse(
                        "5/1m min-interval 1s")))).build())
                .as("a programmatic rule too").isInstanceOf(ConfigException.class)
                .hasMessage("rule api: tier \"free\" uses sliding-log, the rule gcra; a rule's tiers count in one state"
                        + " per key, which only one algorithm can read");
    }

    @Test
    void errorsNameTheFileRuleAndField() {
        fails("rules: [{name: api, limit: 100 per hour}]",
                "rules.yaml: rules[0] (api).limit: expected \"<n>/<period>\" or \"<n> concurrent\"; expected a limit such "
                        + "as \"100/1m\", \"10/s burst 20\", \"10/1m min-interval 2s\", \"20 concurrent\" or "
                        + "\"100/1s warm-up 30s\", got \"100 per hour\"");
        fails("rules: [{name: api, limit: 10/s, algorithm: bucket}]",
                "rules.yaml: rules[0] (api).algorithm: expected one of fixed-window, sliding-window, sliding-log, "
                        + "token-bucket, leaky-bucket, gcra, warm-up, concurrency, adaptive-concurrency, got \"bucket\"");
        fails("rules: [{name: api, limit: 10/s, key: cookie}]", "rules.yaml: rules[0] (api).key: expected ip, ip/<bits>, "
                + "header:<name>, attribute:<name>, query:<name>, principal, path, method or global, or several joined "
                + "with '+' such as \"ip+path\", got \"cookie\"");
        fails("rules: [{name: api, limit: 10/s, mode: loud}]",
                "rules.yaml: rules[0] (api).mode: expected one of enforce, shadow, got \"loud\"");
        fails("rules: [{name: api, limit: 10/s, on-store-failure: retry}]",
                "rules.yaml: rules[0] (api).on-store-failure: expected one of allow, deny, local, got \"retry\"");
        fails("rules: [{name: api, limit: 10/s, on-missing-key: drop}]",
                "rules.yaml: rules[0] (api).on-missing-key: expected one of anonymous, skip, got \"drop\"");
        fails("rules: [{name: api, limit: 10/s, cost: -1}]",
                "rules.yaml: rules[0] (api).cost: expected a whole number >= 0, got \"-1\"");
        fails("rules: [{name: api, limit: 10/s, paths: [api]}]",
                "rules.yaml: rules[0] (api).paths: expected a path pattern starting with '/', of at most 1000 characters, such as \"/api/**\", got \"api\"");
        fails("rules: [{name: api, limit: 10/s, methods: [\"GET /\"]}]",
                "rules.yaml: rules[0] (api).methods: expected an HTTP method such as \"POST\", got \"GET /\"");
        fails("rules: [{name: api}]",
                "rules.yaml: rules[0] (api).limit: expected a limit such as \"100/1m\" (required), got nothing");
        fails("rules: [{name: api, limit: 10/s, method: GET}]", "rules.yaml: rules[0] (api): unknown field; expected one of "
                + "[algorithm, cost, count-status, denial-cache, enqueue, key, limit, methods, mode, name, on-missing-key, on-store-failure, paths, tiers], "
                + "got \"method\"");
        org.assertj.core.api.Assertions.assertThat(RulesFile.parse("rules.yaml",
                "rules: [{name: api, limit: 10/s, denial-cache: false}, {name: web, limit: 10/s}]",
                io.sluice.core.key.ClientIpResolver.direct()).rules())
                .extracting(io.sluice.core.Rule::denialCache).containsExactly(false, true);
        fails("rules: [{name: api, limit: 10/s, denial-cache: maybe}]",
                "rules.yaml: rules[0] (api).denial-cache: expected true or false, got \"maybe\"");
        fails("rules: [{name: api, limit: 10/s, count-status: [40]}]",
                "rules.yaml: rules[0] (api).count-status: expected HTTP statuses such as [401, 403], got \"40\"");
        fails("rules: [{name: 'bad name', limit: 10/s}]", "rules.yaml: rules[0].name: expected a name of letters, digits, "
                + "'.', '_' or '-', at most 64 characters, such as \"per-ip\", got \"bad name\"");
        fails("rules: [{name: a, limit: 10/s}, {name: a, limit: 5/s}]",
                "rules.yaml: rules[1].name: expected a unique name; an earlier rule has this one, got \"a\"");
        fails("rules: [{name: api, limit: 10/s, tiers: {by: 'attribute:plan', policies: {pro: lots}}}]",
                "rules.yaml: rules[0] (api).tiers.policies.pro: expected \"<n>/<period>\" or \"<n> concurrent\"; expected a "
                        + "limit such as \"100/1m\", \"10/s burst 20\", \"10/1m min-interval 2s\", \"20 concurrent\" or "
                        + "\"100/1s warm-up 30s\", got \"lots\"");
        fails("rules: [{name: api, limit: 10/s, tiers: {policies: {pro: 10/s}}}]",
                "rules.yaml: rules[0] (api).tiers.by: expected the key that picks the tier, such as \"attribute:plan\", "
                        + "got nothing");
        fails("rules: [{name: api, limit: 10/1s burst 6 delay 3}]", "rules.yaml: rules[0] (api).limit: delay queues "
                + "requests only with max-wait, and alone changes nothing: add max-wait, such as \"10/1s burst 6 max-wait "
                + "600ms delay 3\" (as long as the full bucket takes to drain), or drop delay; expected a limit such as "
                + "\"100/1m\", \"10/s burst 20\", \"10/1m min-interval 2s\", \"20 concurrent\" or \"100/1s warm-up 30s\", "
                + "got \"10/1s burst 6 delay 3\"");
        fails("allowlist: {addresses: [office]}\nrules: []", "rules.yaml: allowlist.addresses: expected an IP address or "
                + "CIDR block such as \"10.0.0.0/8\", \"192.168.1.7\" or \"2001:db8::/32\", got \"office\"");
    }

    @Test
    void structuralErrorsAreExplained() {
        fails("", "rules.yaml: the file: is empty; expected a mapping with a \"rules\" list");
        fails("defaults: {}", "rules.yaml: the top level: expected a \"rules\" list (\"rules: []\" for none)");
        fails("rules: {name: api}", "rules.yaml: rules: expected a list of rules, got \"{name=api}\"");
        fails("- a\n- b", "rules.yaml: the top level: expected a mapping of [allowlist, defaults, rules], got \"[a, b]\"");
        assertThatThrownBy(() -> parse("rules: [\n  {name: a, limit: 1/s")).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("rules.yaml: not valid YAML: ");
        assertThatThrownBy(() -> parse("rules: []\nrules: []")).hasMessageStartingWith("rules.yaml: not valid YAML: ")
                .hasMessageContaining("duplicate key rules");
    }

    @Test
    void onlyPlainYamlIsRead() {
        assertThatThrownBy(() -> parse("rules: !!javax.script.ScriptEngineManager [x]"))
                .hasMessageStartingWith("rules.yaml: not valid YAML: ");
    }

    /** A list of {@code n} x 2^{@code levels} elements: {@code levels} lists of a list and an alias of that list. */
    private static String aliased(int n, int levels) {
        String inner = "&l0 [" + "x,".repeat(n - 1) + "x]";
        for (int level = 1; level <= levels; level++) {
            inner = "&l" + level + " [" + inner + ", *l" + (level - 1) + "]";
        }
        return inner;
    }

    @Test
    void aliasesRepeatingACollectionAreQuotedBoundedInErrors() {
        // a 40 kB file whose first rule, printed whole, is 2^17 x 20,000 elements: past any String's length
        String many = aliased(20_000, 17);
        assertThatThrownBy(() -> parse("rules: [" + many + "]")).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("rules.yaml: rules[0]: expected a mapping of [algorithm, cost, count-status, "
                        + "denial-cache, enqueue, key, limit, methods, mode, name, on-missing-key, on-store-failure, paths, tiers], "
                        + "got \"[[[[[[[[[[[[[[[[[[x, x, x")
                .hasMessageEndingWith("...\"");
        String deep = aliased(20_000, 15);      // two levels deeper in the file: within its nesting limit
        assertThatThrownBy(() -> parse("rules: [{name: a, limit: 1/s, paths: [" + deep + "]}]"))
                .hasMessageStartingWith("rules.yaml: rules[0] (a).paths: expected a single value, got \"[[[[[[[[[[[[[[[[x, x");
        String some = aliased(100, 6);          // as a key: SnakeYAML hashes it whole
        assertThatThrownBy(() -> parse("rules: [{name: a, limit: 1/s, tiers: {by: 'header:X-Plan', policies: {? "
                + some + " : 5/1m}}}]")).hasMessageStartingWith("rules.yaml: rules[0] (a).tiers.policies: expected tier "
                + "names such as {free: 100/1h, pro: 10000/1h}, not a blank one nor a list or mapping, got \"[[[[[[[x, x");
        assertThatThrownBy(() -> parse("? " + some + "\n: 1\nrules: []"))
                .hasMessageStartingWith("rules.yaml: the top level: unknown field; expected one of [allowlist, defaults, "
                        + "rules], got \"[[[[[[[x, x");
        fails("rules: {name: api, paths: [/a, /b]}", "rules.yaml: rules: expected a list of rules, got \"{name=api, paths=[/a, /b]}\"");
    }

    @Test
    void tiersThatASelectorCannotTellApartAreRefused() {
        fails("rules: [{name: api, limit: 5/1m, tiers: {by: 'header:X-Plan', policies: {'': 7/1m}}}]",
                "rules.yaml: rules[0] (api).tiers.policies: expected tier names such as {free: 100/1h, pro: 10000/1h}, "
                        + "not a blank one nor a list or mapping, got \"\"");
        fails("rules: [{name: api, limit: 5/1m, tiers: {by: 'header:X-Plan', policies: {~: 7/1m}}}]",
                "rules.yaml: rules[0] (api).tiers.policies: expected tier names such as {free: 100/1h, pro: 10000/1h}, "
                        + "not a blank one nor a list or mapping, got nothing");
        fails("rules: [{name: api, limit: 5/1m, tiers: {by: 'header:X-Plan', policies: {[free]: 7/1m}}}]",
                "rules.yaml: rules[0] (api).tiers.policies: expected tier names such as {free: 100/1h, pro: 10000/1h}, "
                        + "not a blank one nor a list or mapping, got \"[free]\"");
        fails("rules: [{name: api, limit: 5/1m, tiers: {by: 'header:X-Plan', policies: {1: 7/1m, '1': 8/1m}}}]",
                "rules.yaml: rules[0] (api).tiers.policies.1: expected a tier distinct from the others; an earlier one is "
                        + "the same as the selector gives it (trimmed, numbers as written), got \"1\"");
        fails("rules: [{name: api, limit: 5/1m, tiers: {by: 'header:X-Plan', policies: {free: 7/1m, ' free': 8/1m}}}]",
                "rules.yaml: rules[0] (api).tiers.policies. free: expected a tier distinct from the others; an earlier "
                        + "one is the same as the selector gives it (trimmed, numbers as written), got \" free\"");
        assertThat(parse("rules: [{name: api, limit: 5/1m, tiers: {by: 'header:X-Plan', policies: {free: 7/1m, Free: "
                + "8/1m, 2: 9/1m, true: 10/1m}}}]").rules().get(0).tiers().policies())
                .containsOnlyKeys("free", "Free", "2", "true");
    }

    @Test
    void aBlankAllowlistedKeyIsRefused() {
        fails("allowlist: {keys: [monitoring, ' ']}\nrules: []",
                "rules.yaml: allowlist.keys: expected key values such as [monitoring-key], not a blank one, got \" \"");
    }

    @Test
    void aRuleInEnqueueModeNamesItsQueue() {
        RuleSet set = parse("rules: [{name: jobs, methods: [POST], limit: 1/1m, enqueue: job-queue}, {name: b, limit: 2/1m}]");
        assertThat(set.enqueue()).containsExactly(java.util.Map.entry("jobs", "job-queue"));
        assertThat(set.queueOf("jobs")).isEqualTo("job-queue");
        assertThat(set.queueOf("b")).isNull();
        assertThat(set.summary()).isEqualTo("[jobs (enqueue job-queue), b]");
    }

    @Test
    void enqueueNeedsAQueueNameAndARateThatCountsEveryRequest() {
        fails("rules: [{name: jobs, limit: 1/1m, enqueue: 'a b'}]", "rules.yaml: rules[0] (jobs).enqueue: expected a"
                + " queue name of letters, digits, '.', '_' or '-', at most 64 characters, such as \"jobs\", got \"a b\"");
        fails("rules: [{name: jobs, limit: 2 concurrent, enqueue: q}]", "rules.yaml: rules[0] (jobs).enqueue: expected"
                + " a rate limit such as \"10/1s\" that counts every request: a concurrency limit or count-status rule"
                + " cannot enqueue, got \"q\"");
    }
}
