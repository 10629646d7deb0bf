package io.sluice.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import jakarta.servlet.ServletException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

class ConfigurationIT {

    /** Starting Jetty fails, and the cause is the filter's ServletException with {@code message}. */
    private static void startUpFails(Map<String, String> parameters, String message) {
        assertThatThrownBy(() -> FilterServer.start(parameters).close())
                .satisfies(e -> assertThat(rootServletException(e)).as("the filter's ServletException").isNotNull()
                        .hasMessage("Sluice rate limiting (filter sluice): invalid configuration: " + message));
    }

    private static Throwable rootServletException(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ServletException && t.getMessage() != null && t.getMessage().startsWith("Sluice")) {
                return t;
            }
            for (Throwable s : t.getSuppressed()) {
                Throwable found = rootServletException(s);
                if (found != null) {
                    return found;
                }
            }
        }
        return null;
    }

    @Test
    void noLimitAndNoRulesFileStopsStartUp() {
        startUpFails(Map.of(), "limit: expected a limit such as \"100/1m\", or a rules file in parameter \"rules\" "
                + "(system property sluice.limit, environment variable SLUICE_LIMIT), got nothing");
    }

    @Test
    void aBadLimitStopsStartUpNamingTheParameterAndValue() {
        startUpFails(Map.of("limit", "100 per minute"), "limit (init-param): expected \"<n>/<period>\" or \"<n> "
                + "concurrent\"; expected a limit such as \"100/1m\", \"10/s burst 20\", \"10/1m min-interval 2s\", "
                + "\"20 concurrent\" or \"100/1s warm-up 30s\", got \"100 per minute\"");
    }

    @Test
    void eachBadParameterStopsStartUpWithItsOwnMessage() {
        startUpFails(Map.of("limit", "1/s", "algorithm", "magic"), "algorithm (init-param): expected one of "
                + "fixed-window, sliding-window, sliding-log, token-bucket, leaky-bucket, gcra, warm-up, concurrency, "
                + "adaptive-concurrency, got \"magic\"");
        startUpFails(Map.of("limit", "1/s", "key", "cookie:sid"), "key (init-param): expected ip, ip/<bits>, "
                + "header:<name>, attribute:<name>, query:<name>, principal, path, method or global, or several joined "
                + "with '+' such as \"ip+path\", got \"cookie:sid\"");
        startUpFails(Map.of("limit", "1/s", "store", "memcached://x"), "store (init-param): expected \"memory\" or a "
                + "Redis URL such as \"redis://localhost:6379\", \"redis-sentinel://10.0.0.5:26379/mymaster\" or "
                + "\"redis-cluster://10.0.0.7:7000\", got \"memcached://x\"");
        startUpFails(Map.of("limit", "1/s", "store", "rediss-cluster://10.0.0.7:7000"), "store (init-param): TLS to"
                + " Sentinel or Cluster cannot be set by a URL (there is no rediss-sentinel:// or rediss-cluster://); for"
                + " Sentinel or Cluster over TLS, give the store a Jedis client configured for TLS (a RedisSentinelClient"
                + " or RedisClusterClient built with DefaultJedisClientConfig.builder().ssl(true)): in code with"
                + " RedisStore.builder().client(...), in the servlet or JAX-RS filter by a CDI producer of that client or"
                + " of the Store. Without TLS, expected \"redis-sentinel://10.0.0.5:26379,10.0.0.6:26379/mymaster\" or"
                + " \"redis-cluster://10.0.0.7:7000,10.0.0.8:7000\", got \"rediss-cluster://10.0.0.7:7000\"");
        startUpFails(Map.of("limit", "1/s", "store", "redis://localhost:6379?Timeout=200ms"), "store (init-param):"
                + " unknown option \"Timeout=200ms\"; did you mean \"timeout\"? (option names are lower case, words"
                + " joined by '-'); the Redis URL takes \"time=application\" or \"time=redis\" (the default),"
                + " \"timeout=<duration>\" (default 50ms), \"pool-size=<connections>\" (default 16),"
                + " \"prefix=<key prefix>\" (default sluice), \"hash-tag=true\" (default false), \"coalesce=false\""
                + " (default true) and \"raw-keys=true\" (default false), each at most once,"
                + " such as \"redis://host:6379?timeout=200ms&pool-size=32\", got \"redis://localhost:6379?Timeout=200ms\"");
        startUpFails(Map.of("limit", "1/s", "headers", "all"),
                "headers (init-param): expected one of ietf, legacy, both, none, got \"all\"");
        startUpFails(Map.of("limit", "1/s", "body", "xml"),
                "body (init-param): expected one of envelope, problem, none, got \"xml\"");
        startUpFails(Map.of("limit", "1/s", "trusted-proxies", "lb.internal"), "trusted-proxies (init-param): expected "
                + "an IP address or CIDR block such as \"10.0.0.0/8\", \"192.168.1.7\" or \"2001:db8::/32\", got \"lb.internal\"");
        startUpFails(Map.of("limit", "1/s", "on-store-failure", "panic"),
                "on-store-failure (init-param): expected one of allow, deny, local, got \"panic\"");
        startUpFails(Map.of("limit", "1/s", "exclude", "health"), "exclude (init-param): expected a path pattern "
                + "starting with '/', of at most 1000 characters, such as \"/health\" or \"/static/**\", got \"health\"");
        startUpFails(Map.of("limit", "1/s", "shadow", "maybe"), "shadow (init-param): expected true or false, got \"maybe\"");
        startUpFails(Map.of("limit", "1/s", "deny-headers", "Cache-Control: public"), "deny-headers (init-param): "
                + "Sluice sets this header itself; expected another header, got \"Cache-Control\"");
        startUpFails(Map.of("limit", "1/s", "rate", "5/s"), "rate (init-param): unknown parameter; expected one of limit, name, "
                + "algorithm, key, on-store-failure, on-missing-key, rules, reload-interval, settings-interval, store, "
                + "max-keys, node-count, trusted-proxies, client-ip-header, exclude, shadow, headers, header-draft, "
                + "reset-format, partition-key, body, "
                + "deny-headers, allowlist-addresses, allowlist-keys, allowlist-roles, config-prefix, got \"rate\"");
    }

    @Test
    void aMissingRulesFileStopsStartUp() {
        startUpFails(Map.of("rules", "/WEB-INF/none.yaml"), "rules (init-param): expected a file path, or a resource "
                + "inside the WAR starting with /WEB-INF/; there is none, got \"/WEB-INF/none.yaml\"");
        startUpFails(Map.of("rules", "/nonexistent/sluice-rules.yaml"), "rules (init-param): cannot read the rules file "
                + "(java.nio.file.NoSuchFileException: /nonexistent/sluice-rules.yaml), got \"/nonexistent/sluice-rules.yaml\"");
    }

    /**
     * A queue whose longest wait (19 minutes) outlasts the lease of a concurrency rule (1 minute) when both apply to
     * every request: a request that waits that long would run no longer counted in flight.
     */
    @Test
    void aQueueThatOutlastsAConcurrencyLeaseStopsStartUp() throws Exception {
        java.nio.file.Path rules = java.nio.file.Files.createTempFile("rules", ".yaml");
        try {
            java.nio.file.Files.writeString(rules, """
                    rules:
                      - name: in-flight
                        limit: 20 concurrent
                        key: global
                    """);
            startUpFails(Map.of("limit", "1/1m burst 20 max-wait 1h", "rules", rules.toString()), "rule \"in-flight\": "
                    + "its leases expire after 1m, but a request may wait up to 19m holding one in the queue of rule "
                    + "\"per-ip\" (1/1m burst 20 max-wait 1h), and both rules apply to every request: a request that "
                    + "waits that long runs no longer counted in flight, so \"in-flight\" admits more than 20; expected a "
                    + "lease longer than the longest wait plus the longest response time, such as \"20 concurrent lease "
                    + "20m\", or a max-wait of \"per-ip\" below 1m, got \"20 concurrent\"");
        } finally {
            java.nio.file.Files.deleteIfExists(rules);
        }
    }

    @Test
    void aSystemPropertyOverridesTheInitParameterAndErrorsNameIt() throws Exception {
        System.setProperty("cfgtest.limit", "1/1m");
        try (FilterServer server = FilterServer.start(Map.of("config-prefix", "cfgtest", "limit", "100/1m"))) {
            server.client().get("/").then().statusCode(200).header("X-RateLimit-Limit", "1");
            server.client().get("/").then().statusCode(429);
        } finally {
            System.clearProperty("cfgtest.limit");
        }
        System.setProperty("cfgtest.headers", "fancy");
        try {
            assertThatThrownBy(() -> FilterServer.start(Map.of("config-prefix", "cfgtest", "limit", "1/s")).close())
                    .satisfies(e -> assertThat(rootServletException(e)).hasMessageEndingWith(
                            "cfgtest.headers (system property): expected one of ietf, legacy, both, none, got \"fancy\""));
        } finally {
            System.clearProperty("cfgtest.headers");
        }
    }

    @Test
    void theEffectiveConfigurationIsLoggedOnceAtStartUp() throws Exception {
        List<String> lines = new ArrayList<>();
        Logger logger = Logger.getLogger(RateLimitFilter.class.getName());
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord r) {
                lines.add(r.getMessage());
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        logger.addHandler(capture);
        try (FilterServer server = FilterServer.start(Map.of("limit", "100/1m", "store", "memory",
                "trusted-proxies", "127.0.0.1", "exclude", "/health"))) {
            server.client().get("/").then().statusCode(200);
            server.client().get("/").then().statusCode(200);
        } finally {
            logger.removeHandler(capture);
        }
        logger.addHandler(capture);
        try (FilterServer server = FilterServer.start(Map.of("limit", "100/1m", "trusted-proxies", "127.0.0.1",
                "client-ip-header", "forwarded", "body", "problem"))) {
            server.client().get("/").then().statusCode(200);
        } finally {
            logger.removeHandler(capture);
        }
        assertThat(lines).hasSize(2);
        assertThat(lines.get(1)).as("every setting that took part is named").contains(
                "  client ip = right-most untrusted Forwarded entry behind trusted proxies [127.0.0.1/32] "
                        + "(from trusted-proxies (init-param), client-ip-header (init-param))",
                "  response = headers=both, header-draft=11, reset-format=epoch-seconds, body=problem, deny-headers=[] "
                        + "(from body (init-param))");
        lines.remove(1);

        assertThat(lines).hasSize(1);
        assertThat(lines.get(0)).startsWith("Sluice rate limiting (filter sluice): [per-ip]\n").contains(
                "  client ip = right-most untrusted X-Forwarded-For entry behind trusted proxies [127.0.0.1/32] "
                        + "(from trusted-proxies (init-param))",
                "  limit = 100/1m (gcra) as rule \"per-ip\", key ip, on-store-failure allow, on-missing-key skip "
                        + "(from limit (init-param))",
                "  store = memory (from store (init-param))",
                "  exclude = [/health] (from exclude (init-param))",
                "  shadow = false (default)",
                "  response = headers=both, header-draft=11, reset-format=epoch-seconds, body=envelope, deny-headers=[] (default)");
    }
}
