package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.config.ConfigException;
import io.sluice.core.policy.Algorithm;
import io.sluice.core.Rule;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SluiceConfigTest {

    private static SluiceConfig load(Map<String, String> own) {
        return load(Map.of(), own);
    }

    private static SluiceConfig load(Map<String, String> environment, Map<String, String> own) {
        return SluiceConfig.load(Parameters.of("sluice", k -> null, environment::get, own, "init-param"),
                value -> value.equals("/missing") ? null : RulesSource.file(java.nio.file.Path.of(value)));
    }

    private static void fails(Map<String, String> own, String message) {
        assertThatThrownBy(() -> load(own)).isInstanceOf(ConfigException.class).hasMessage(message);
    }

    @Test
    void aOneLineLimitBuildsOneRuleWithTheDefaults() {
        SluiceConfig c = load(Map.of("limit", "100/1m"));

        Rule rule = c.limitRule();
        assertThat(rule.name()).isEqualTo("per-ip");
        assertThat(rule.key()).hasToString("ip");
        assertThat(rule.policy().algorithm()).isEqualTo(Algorithm.GCRA);
        assertThat(rule.onStoreFailure()).isEqualTo(Rule.FailureMode.ALLOW);
        assertThat(c.store()).isEqualTo("memory");
        assertThat(c.maxKeys()).isEqualTo(100_000);
        assertThat(c.reloadIntervalMicros()).isEqualTo(10_000_000);
        assertThat(c.settingsIntervalMicros()).isEqualTo(1_000_000);
        assertThat(c.shadow()).isFalse();
        assertThat(c.exclude()).isEmpty();
        assertThat(c.rules()).isNull();
        assertThat(c.responder()).hasToString("headers=both, header-draft=11, reset-format=epoch-seconds, body=envelope, deny-headers=[]");
    }

    @Test
    void theDescriptionStatesEveryEffectiveValueAndWhereItCameFrom() {
        SluiceConfig c = load(Map.of("SLUICE_STORE", "redis://user:hunter2@redis:6379"), Map.of("limit", "10/s",
                "key", "header:X-Api-Key", "trusted-proxies", "10.0.0.0/8", "exclude", "/health, /static/**"));

        assertThat(c.description()).contains(
                "limit = 10/1s (gcra) as rule \"per-header-x-api-key\", key header:X-Api-Key, on-store-failure allow, "
                        + "on-missing-key skip (from limit (init-param), key (init-param))",
                "store = redis://user:***@redis:6379 (from SLUICE_STORE (environment variable))",
                "exclude = [/health, /static/**] (from exclude (init-param))",
                "shadow = false (default)");
        assertThat(String.join("\n", c.description())).doesNotContain("hunter2");
        assertThat(c.description()).contains("settings-interval = 1s (default)");
        assertThat(load(Map.of("limit", "10/s")).description()).as("nothing reads it on the memory store")
                .noneMatch(line -> line.startsWith("settings-interval"));
    }

    /** Issue 30: the algorithm that SLUICE_ALGORITHM chose was credited to the limit parameter. */
    @Test
    void theLimitLineNamesEveryParameterThatShapedTheRuleWhereverItCameFrom() {
        SluiceConfig c = load(Map.of("SLUICE_ALGORITHM", "fixed-window", "SLUICE_ON_STORE_FAILURE", "deny"),
                Map.of("limit", "10/s", "name", "api"));

        assertThat(c.limitRule().policy().algorithm()).isEqualTo(Algorithm.FIXED_WINDOW);
        assertThat(c.description()).contains("limit = 10/1s (fixed-window) as rule \"api\", key ip, on-store-failure"
                + " deny, on-missing-key skip (from limit (init-param), SLUICE_ALGORITHM (environment variable), name"
                + " (init-param), SLUICE_ON_STORE_FAILURE (environment variable))");
    }

    @Test
    void settingsIntervalIsADurationAndZeroMeansMessagesOnly() {
        assertThat(load(Map.of("limit", "1/s", "settings-interval", "250ms")).settingsIntervalMicros()).isEqualTo(250_000);
        SluiceConfig messagesOnly = load(Map.of("limit", "1/s", "settings-interval", "0", "store", "redis://redis:6379"));
        assertThat(messagesOnly.settingsIntervalMicros()).isZero();
        assertThat(messagesOnly.description())
                .contains("settings-interval = 0 (messages only) (from settings-interval (init-param))");
        fails(Map.of("limit", "1/s", "settings-interval", "soon"), "settings-interval (init-param): \"soon\" is not a "
                + "duration such as \"2s\" or \"500ms\", got \"soon\"");
        fails(Map.of("limit", "1/s", "settings-interval", "-1s"), "settings-interval (init-param): \"-1s\" is not a "
                + "duration such as \"2s\" or \"500ms\", got \"-1s\"");
        fails(Map.of("limit", "1/s", "settings-interval", "1M"), "settings-interval (init-param): unit \"M\" is "
                + "ambiguous: write m for minutes, got \"1M\"");
        fails(Map.of("limit", "1/s", "settings-interval", "200000d"), "settings-interval (init-param): expected a "
                + "duration such as \"10s\" or \"5m\", got \"200000d\"");
    }

    @Test
    void headerDraftIs11Or10() {
        fails(Map.of("limit", "1/s", "header-draft", "12"), "header-draft (init-param): expected 11 "
                + "(draft-ietf-httpapi-ratelimit-headers-11, t is the effective window) or 10 (t is the reset time when "
                + "allowed, the retry time when denied), got \"12\"");
        assertThat(load(Map.of("limit", "1/s", "header-draft", "10")).responder().toString()).contains("header-draft=10");
    }

    @Test
    void everyKindOfBadValueNamesTheParameterItsSourceAndTheValue() {
        fails(Map.of(), "limit: expected a limit such as \"100/1m\", or a rules file in parameter \"rules\" (system "
                + "property sluice.limit, environment variable SLUICE_LIMIT), got nothing");
        fails(Map.of("limit", "100 per minute"), "limit (init-param): expected \"<n>/<period>\" or \"<n> concurrent\"; "
                + "expected a limit such as \"100/1m\", \"10/s burst 20\", \"10/1m min-interval 2s\", \"20 concurrent\" or "
                + "\"100/1s warm-up 30s\", got \"100 per minute\"");
        fails(Map.of("limit", "1/s", "algorithm", "magic"), "algorithm (init-param): expected one of fixed-window, "
                + "sliding-window, sliding-log, token-bucket, leaky-bucket, gcra, warm-up, concurrency, adaptive-concurrency, "
                + "got \"magic\"");
        fails(Map.of("limit", "1/s", "key", "cookie:x"), "key (init-param): expected ip, ip/<bits>, header:<name>, "
                + "attribute:<name>, query:<name>, principal, path, method or global, or several joined with '+' such as "
                + "\"ip+path\", got \"cookie:x\"");
        fails(Map.of("limit", "1/s", "store", "mysql://db"),
                "store (init-param): expected \"memory\" or a Redis URL such as \"redis://localhost:6379\","
                        + " \"redis-sentinel://10.0.0.5:26379/mymaster\" or \"redis-cluster://10.0.0.7:7000\", got"
                        + " \"mysql://db\"");
        fails(Map.of("limit", "1/s", "store", "redis-sentinel://10.0.0.5:26379"), "store (init-param): expected the"
                + " master's name after the sentinels, such as \"redis-sentinel://10.0.0.5:26379,10.0.0.6:26379/mymaster\""
                + " (letters, digits, '.', '_' or '-'; no database: the master's is 0), got \"redis-sentinel://10.0.0.5:26379\"");
        fails(Map.of("limit", "1/s", "store", "rediss-sentinel://10.0.0.5:26379/mymaster"), "store (init-param): TLS"
                + " to Sentinel or Cluster cannot be set by a URL (there is no rediss-sentinel:// or rediss-cluster://);"
                + " for Sentinel or Cluster over TLS, give the store a Jedis client configured for TLS (a"
                + " RedisSentinelClient or RedisClusterClient built with DefaultJedisClientConfig.builder().ssl(true)):"
                + " in code with RedisStore.builder().client(...), in the servlet or JAX-RS filter by a CDI producer of"
                + " that client or of the Store. Without TLS, expected"
                + " \"redis-sentinel://10.0.0.5:26379,10.0.0.6:26379/mymaster\" or"
                + " \"redis-cluster://10.0.0.7:7000,10.0.0.8:7000\", got \"rediss-sentinel://10.0.0.5:26379/mymaster\"");
        assertThat(load(Map.of(), Map.of("limit", "1/s", "store", "redis-sentinel://10.0.0.5,10.0.0.6/mymaster?timeout=200ms"))
                .store()).as("Sentinel and Cluster are URLs too").startsWith("redis-sentinel://");
        fails(Map.of("limit", "1/s", "headers", "all"),
                "headers (init-param): expected one of ietf, legacy, both, none, got \"all\"");
        fails(Map.of("limit", "1/s", "body", "html"),
                "body (init-param): expected one of envelope, problem, none, got \"html\"");
        fails(Map.of("limit", "1/s", "reset-format", "iso"),
                "reset-format (init-param): expected one of epoch-seconds, delta-seconds, got \"iso\"");
        fails(Map.of("limit", "1/s", "partition-key", "raw"),
                "partition-key (init-param): expected one of none, hash, got \"raw\"");
        fails(Map.of("limit", "1/s", "trusted-proxies", "10.0.0.0/8, proxy"), "trusted-proxies (init-param): expected an "
                + "IP address or CIDR block such as \"10.0.0.0/8\", \"192.168.1.7\" or \"2001:db8::/32\", got \"proxy\"");
        fails(Map.of("limit", "1/s", "client-ip-header", "x-real-ip"),
                "client-ip-header (init-param): expected \"x-forwarded-for\" or \"forwarded\", got \"x-real-ip\"");
        fails(Map.of("limit", "1/s", "on-store-failure", "retry"),
                "on-store-failure (init-param): expected one of allow, deny, local, got \"retry\"");
        fails(Map.of("limit", "1/s", "on-missing-key", "drop"),
                "on-missing-key (init-param): expected one of skip, anonymous, got \"drop\"");
        fails(Map.of("limit", "1/s", "exclude", "health"), "exclude (init-param): expected a path pattern starting with "
                + "'/', of at most 1000 characters, such as \"/health\" or \"/static/**\", got \"health\"");
        fails(Map.of("limit", "1/s", "shadow", "yes"), "shadow (init-param): expected true or false, got \"yes\"");
        fails(Map.of("limit", "1/s", "reload-interval", "200000d"),
                "reload-interval (init-param): expected a duration such as \"10s\" or \"5m\", got \"200000d\"");
        fails(Map.of("limit", "1/s", "reload-interval", "5M"), "reload-interval (init-param): unit \"M\" is ambiguous:"
                + " write m for minutes, got \"5M\"");
        fails(Map.of("limit", "1/s", "max-keys", "0"),
                "max-keys (init-param): expected a whole number between 1 and 9223372036854775807, got \"0\"");
        fails(Map.of("limit", "1/s", "max-keys", "9223372036854775808"),
                "max-keys (init-param): expected a whole number between 1 and 9223372036854775807, got "
                        + "\"9223372036854775808\"");
        assertThat(load(Map.of(), Map.of("limit", "1/s", "max-keys", "1000000000000000000")).maxKeys())
                .as("19 digits, within the range the message gives").isEqualTo(1_000_000_000_000_000_000L);
        fails(Map.of("limit", "1/s", "node-count", "many"),
                "node-count (init-param): expected a whole number between 1 and 10000, got \"many\"");
        fails(Map.of("limit", "1/s", "reload-interval", "soon"), "reload-interval (init-param): \"soon\" is not a "
                + "duration such as \"2s\" or \"500ms\", got \"soon\"");
        fails(Map.of("limit", "1/s", "name", "my rule"), "name (init-param): expected a rule name of letters, digits, "
                + "'.', '_' or '-', at most 64 characters, got \"my rule\"");
        fails(Map.of("limit", "1/s", "deny-headers", "Retry-After: 0"), "deny-headers (init-param): Sluice sets this "
                + "header itself; expected another header, got \"Retry-After\"");
        fails(Map.of("limit", "1/s", "deny-headers", "just-a-name"), "deny-headers (init-param): expected \"Name: value\" "
                + "lines (or separated by '|'), such as \"Access-Control-Allow-Origin: *\", got \"just-a-name\"");
        fails(Map.of("rules", "/missing"), "rules (init-param): expected a file path, or a resource inside the WAR "
                + "starting with /WEB-INF/; there is none, got \"/missing\"");
        fails(Map.of("rules", "/tmp/r.yaml", "key", "ip"), "key (init-param): applies only to the rule of parameter "
                + "\"limit\", which is not set; set it per rule in the rules file instead, got \"ip\"");
        fails(Map.of("limit", "1/s", "trusted-proxy", "10.0.0.0/8"), "trusted-proxy (init-param): unknown parameter; expected one of "
                + String.join(", ", SluiceConfig.NAMES) + ", got \"trusted-proxy\"");
    }

    @Test
    void aRulesValueThatIsNoValidPathIsNamedAsTheParameter() {
        assertThatThrownBy(() -> SluiceConfig.loadWithoutRules(Parameters.of("sluice", k -> null, k -> null,
                Map.of("rules", "/etc/sluice\u0000.yaml"), "JAX-RS property").ownNamedWithPrefix(), SluiceConfig.files()))
                .isInstanceOf(ConfigException.class).hasMessage("sluice.rules (JAX-RS property): expected a file path, or a "
                        + "resource inside the WAR starting with /WEB-INF/; there is none, got \"/etc/sluice\u0000.yaml\"");
    }

    @Test
    void environmentValuesAreNamedByTheirVariable() {
        assertThatThrownBy(() -> load(Map.of("SLUICE_LIMIT", "lots"), Map.of("limit", "1/s")))
                .hasMessageStartingWith("SLUICE_LIMIT (environment variable): expected");
        assertThatThrownBy(() -> load(Map.of("SLUICE_STORE", "redis://u:pa%2Fss@cache:99999"), Map.of("limit", "1/s")))
                .as("a Redis URL is checked at load, named by its source, without its password")
                .hasMessageStartingWith("SLUICE_STORE (environment variable): expected a port between 1 and 65535")
                .hasMessageNotContaining("pa%2Fss").hasMessageNotContaining("pa/ss");
        assertThatThrownBy(() -> load(Map.of("SLUICE_STORE", "rediss-cluster://u:s3cret@n1:7000,n2:7000"),
                Map.of("limit", "1/s"))).as("TLS to a Cluster: its own message, not \"expected memory or a Redis URL\"")
                .hasMessageStartingWith("SLUICE_STORE (environment variable): TLS to Sentinel or Cluster cannot be set"
                        + " by a URL").hasMessageNotContaining("s3cret");
    }

    @Test
    void aSystemPropertyOfThePrefixThatNamesNoParameterIsReportedNotSilentlyIgnored() {
        java.util.List<String> logged = new java.util.ArrayList<>();
        java.util.logging.Logger logger = java.util.logging.Logger.getLogger(SluiceConfig.class.getName());
        java.util.logging.Handler capture = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                logged.add(r.getLevel() + " " + r.getMessage());
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        logger.addHandler(capture);
        System.setProperty("sluice.limt", "1/1m");              // a typo of sluice.limit
        System.setProperty("sluice.trusted-proxy", "10.0.0.0/8");
        System.setProperty("sluice.headers", "ietf");
        System.setProperty("sluice.redis-url", "redis://x");    // not a parameter, nor nearly one: someone else's
        System.setProperty("sluice.config-prefix", "api");
        try {
            Parameters parameters = Parameters.of("sluice", Map.of("limit", "5/1m"), "init-param");
            assertThat(parameters.misspeltOverrides(SluiceConfig.NAMES)).containsExactly(
                    "sluice.limt (system property) is not a parameter; did you mean sluice.limit?",
                    "sluice.trusted-proxy (system property) is not a parameter; did you mean sluice.trusted-proxies?");
            SluiceConfig config = SluiceConfig.load(parameters, SluiceConfig.files());
            assertThat(config.limitRule().policy().limit()).isEqualTo(5);
            assertThat(logged).contains(
                    "WARNING sluice.limt (system property) is not a parameter; did you mean sluice.limit? It is ignored.",
                    "WARNING sluice.config-prefix (system property) is ignored: config-prefix is read only from the "
                            + "servlet filter's init-param, as it names the system properties and variables to read");
            assertThat(logged).noneMatch(line -> line.contains("redis-url") || line.contains("sluice.headers"));
            assertThat(Parameters.of("sluice", k -> null, k -> null, Map.of(), "init-param")
                    .misspeltOverrides(SluiceConfig.NAMES)).as("given lookups (tests) are not listed").isEmpty();
        } finally {
            for (String name : List.of("limt", "trusted-proxy", "headers", "redis-url", "config-prefix")) {
                System.clearProperty("sluice." + name);
            }
            logger.removeHandler(capture);
        }
    }

    @Test
    void denyHeadersAreLinesOrPipeSeparated() {
        SluiceConfig lines = load(Map.of("limit", "1/s", "deny-headers",
                "\n  Access-Control-Allow-Origin: *\n  Access-Control-Expose-Headers: Retry-After, RateLimit\n"));
        SluiceConfig pipes = load(Map.of("limit", "1/s", "deny-headers", "Access-Control-Allow-Origin: * | Vary: Origin"));

        assertThat(lines.responder().toString()).endsWith("deny-headers=[Access-Control-Allow-Origin, Access-Control-Expose-Headers]");
        assertThat(pipes.responder().toString()).endsWith("deny-headers=[Access-Control-Allow-Origin, Vary]");
    }

    @Test
    void defaultRuleNamesFollowTheKey() {
        assertThat(SluiceConfig.defaultName("ip")).isEqualTo("per-ip");
        assertThat(SluiceConfig.defaultName("header:X-Api-Key")).isEqualTo("per-header-x-api-key");
        assertThat(SluiceConfig.defaultName("ip+path")).isEqualTo("per-ip-path");
        assertThat(SluiceConfig.defaultName("ip/56")).isEqualTo("per-ip-56");
    }

    @Test
    void aFrontDoorWithRulesOfItsOwnNeedsNeitherLimitNorRules() {
        SluiceConfig config = SluiceConfig.loadWithoutRules(Parameters.of("sluice", name -> null, name -> null,
                Map.of("exclude", "/health"), "JAX-RS property"), SluiceConfig.files());

        assertThat(config.limitRule()).isNull();
        assertThat(config.rules()).isNull();
        assertThat(config.exclude()).containsExactly("/health");
        assertThatThrownBy(() -> SluiceConfig.load(Parameters.of("sluice", name -> null, name -> null, Map.of(), "x"),
                SluiceConfig.files())).isInstanceOf(ConfigException.class).hasMessageStartingWith("limit: ");
    }

    @Test
    void aFrontDoorWithRulesOfItsOwnTakesTheApplicationsNamedKeyResolvers() {
        io.sluice.core.key.KeyResolver tenant = request -> request.header("X-Tenant");
        SluiceConfig config = SluiceConfig.loadWithoutRules(Parameters.of("sluice", name -> null, name -> null,
                Map.of("limit", "1/1h", "key", "tenant"), "JAX-RS property").ownNamedWithPrefix(), SluiceConfig.files(),
                Map.of("tenant", tenant));

        assertThat(config.limitRule().key()).hasToString("tenant");
        assertThat(config.limitRule().resolveKey(io.sluice.core.request.RequestView.builder("GET", "/")
                .header("X-Tenant", "acme").build())).isEqualTo("acme");
        assertThat(config.namedKeys()).containsOnlyKeys("tenant");
    }

    @Test
    void jaxrsPropertiesAreNamedAsWrittenWithThePrefix() {
        Parameters properties = Parameters.of("sluice", name -> null, name -> null,
                Map.of("limit", "lots"), "JAX-RS property").ownNamedWithPrefix();
        assertThatThrownBy(() -> SluiceConfig.loadWithoutRules(properties, SluiceConfig.files()))
                .hasMessageStartingWith("sluice.limit (JAX-RS property): ");
        assertThatThrownBy(() -> SluiceConfig.loadWithoutRules(Parameters.of("sluice", name -> null, name -> null,
                Map.of("trusted-proxy", "10.0.0.0/8"), "JAX-RS property").ownNamedWithPrefix(), SluiceConfig.files()))
                .hasMessageStartingWith("sluice.trusted-proxy (JAX-RS property): unknown parameter");
    }
}
