package io.sluice.filter;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A rules file inside the WAR: paths, methods, tiers, allowlist, shadow mode, exclusions, and reloading. */
class RulesIT {

    @TempDir
    Path webRoot;

    private long mtime = 1_700_000_000_000L;

    private void writeRules(String yaml) throws IOException {
        Path file = webRoot.resolve("WEB-INF/sluice-rules.yaml");
        Files.createDirectories(file.getParent());
        Files.writeString(file, yaml);
        mtime += 1_000;     // set explicitly: the reload check compares modification times, no sleeping needed
        Files.setLastModifiedTime(file, FileTime.fromMillis(mtime));
    }

    private FilterServer start(String yaml, Map<String, String> extra) throws Exception {
        writeRules(yaml);
        Map<String, String> parameters = new java.util.HashMap<>(Map.of("rules", "/WEB-INF/sluice-rules.yaml",
                "trusted-proxies", "127.0.0.1"));
        parameters.putAll(extra);
        return FilterServer.start(parameters, webRoot);
    }

    @Test
    void rulesApplyToTheirPathsAndMethodsAndTheTightestBinds() throws Exception {
        try (FilterServer server = start("""
                rules:
                  - name: login
                    paths: [/login]
                    methods: [POST]
                    limit: 1/1m
                  - name: site
                    limit: 5/1m
                """, Map.of())) {
            server.client().get("/login").then().statusCode(200).header("X-Decision-Binding", "site");
            server.client().post("/login").then().statusCode(200).header("X-Decision-Binding", "login")
                    .header("RateLimit", "\"login\";r=0;t=60");
            server.client().post("/login").then().statusCode(429).header("RateLimit-Policy", "\"login\";q=1;w=60");
            server.client().get("/home").then().statusCode(200).header("RateLimit", "\"site\";r=2;t=12");   // -11: the next unit back
        }
    }

    @Test
    void tiersPickThePolicyFromTheRequest() throws Exception {
        try (FilterServer server = start("""
                rules:
                  - name: api
                    key: header:X-Api-Key
                    limit: 1/1h
                    tiers:
                      by: attribute:plan
                      policies: {free: 1/1h, pro: 3/1h}
                """, Map.of())) {
            server.client().header("X-Api-Key", "k1").header("X-Test-Plan", "free").get("/").then().statusCode(200)
                    .header("RateLimit-Policy", "\"api\";q=1;w=3600");
            server.client().header("X-Api-Key", "k1").header("X-Test-Plan", "free").get("/").then().statusCode(429);
            for (int i = 0; i < 3; i++) {
                server.client().header("X-Api-Key", "k2").header("X-Test-Plan", "pro").get("/").then().statusCode(200)
                        .header("RateLimit-Policy", "\"api\";q=3;w=3600");
            }
            server.client().header("X-Api-Key", "k2").header("X-Test-Plan", "pro").get("/").then().statusCode(429);
        }
    }

    @Test
    void allowlistedAddressesAndKeysAreNeverLimited() throws Exception {
        try (FilterServer server = start("""
                allowlist:
                  addresses: [198.51.100.0/24]
                  keys: [monitoring]
                rules:
                  - {name: per-ip, limit: 1/1m}
                  - {name: per-key, key: header:X-Api-Key, limit: 1/1m}
                """, Map.of())) {
            for (int i = 0; i < 3; i++) {
                server.from("198.51.100.7").get("/").then().statusCode(200).header("RateLimit", (String) null);
            }
            server.from("203.0.113.1").header("X-Api-Key", "monitoring").get("/").then().statusCode(200)
                    .header("X-Decision-Binding", "per-ip");
            server.from("203.0.113.2").header("X-Api-Key", "monitoring").get("/").then().statusCode(200);
            server.from("203.0.113.3").header("X-Api-Key", "user").get("/").then().statusCode(200);
            server.from("203.0.113.4").header("X-Api-Key", "user").get("/").then().statusCode(429);
        }
    }

    @Test
    void aShadowRuleCountsAndReportsButNeverDenies() throws Exception {
        List<String> log = new ArrayList<>();
        Handler capture = capture(log);
        Logger logger = Logger.getLogger("io.sluice.http.ShadowReport");
        logger.addHandler(capture);
        try (FilterServer server = start("""
                rules:
                  - {name: trial, limit: 1/1m, mode: shadow}
                """, Map.of())) {
            server.client().get("/").then().statusCode(200).header("X-Decision-Shadow-Denied", "false");
            for (int i = 0; i < 3; i++) {
                server.client().get("/").then().statusCode(200)
                        .header("X-Decision-Shadow-Denied", "true")
                        .header("RateLimit", (String) null);
            }
            server.clock.advance(Duration.ofMinutes(1));
            server.client().get("/").then().statusCode(200);
            server.client().get("/").then().statusCode(200);
        } finally {
            logger.removeHandler(capture);
        }
        assertThat(log).containsExactly(
                "shadow mode: would have denied {trial=1} (first denial; next report in at most a minute)",
                "shadow mode: would have denied {trial=3} request(s) in the last 60 s");
    }

    @Test
    void theShadowParameterPutsEveryRuleInShadowMode() throws Exception {
        try (FilterServer server = start("rules: [{name: strict, limit: 1/1m}]", Map.of("limit", "1/1m", "shadow", "true"))) {
            for (int i = 0; i < 3; i++) {
                server.client().get("/").then().statusCode(200);
            }
            server.client().get("/").then().header("X-Decision-Shadow-Denied", "true");
        }
    }

    @Test
    void excludedPathsAreNeitherCountedNorAnswered() throws Exception {
        try (FilterServer server = FilterServer.start(Map.of("limit", "1/1m", "exclude", "/health, /static/**"))) {
            for (int i = 0; i < 3; i++) {
                server.client().get("/health").then().statusCode(200).header("RateLimit", (String) null)
                        .header("X-Decision-Binding", "none");
                server.client().get("/static/app.js").then().statusCode(200);
            }
            server.client().get("/").then().statusCode(200).header("RateLimit", "\"per-ip\";r=0;t=60");
            server.client().get("/healthz").then().statusCode(429);
            server.client().get("/health/").then().statusCode(200).header("X-Decision-Binding", "none");
        }
        try (FilterServer server = FilterServer.start(Map.of("limit", "1/1m", "exclude", "/users/*"))) {
            server.client().get("/users/7").then().statusCode(200).header("X-Decision-Binding", "none");
            server.client().get("/users").then().statusCode(200).header("X-Decision-Binding", "per-ip");
            server.client().get("/users/").then().statusCode(429);   // the path /users, not an excluded empty segment
        }
    }

    @Test
    void aChangedRulesFileIsReloadedAndAnInvalidOneKeepsTheRulesInForce() throws Exception {
        List<String> log = new ArrayList<>();
        Handler capture = capture(log);
        Logger logger = Logger.getLogger("io.sluice.http.ReloadingRules");
        logger.addHandler(capture);
        try (FilterServer server = start("rules: [{name: old, limit: 1/1m}]", Map.of("reload-interval", "5s"))) {
            server.client().get("/").then().statusCode(200).header("X-Decision-Binding", "old");

            writeRules("rules: [{name: new, limit: 2/1m}]");
            server.client().get("/").then().statusCode(429);        // the interval has not passed: still "old"
            server.clock.advance(Duration.ofSeconds(5));
            server.client().get("/").then().statusCode(200).header("X-Decision-Binding", "new")
                    .header("RateLimit-Policy", "\"new\";q=2;w=60");

            writeRules("rules: [{name: broken, limit: 2 per minute}]");
            server.clock.advance(Duration.ofSeconds(5));
            server.client().get("/").then().statusCode(200).header("X-Decision-Binding", "new");
            server.client().get("/").then().statusCode(429).header("RateLimit-Policy", "\"new\";q=2;w=60");
        } finally {
            logger.removeHandler(capture);
        }
        assertThat(log).hasSize(2);
        assertThat(log.get(0)).endsWith("sluice-rules.yaml: 1 rule(s) [new]");
        assertThat(log.get(1)).contains("sluice-rules.yaml changed but is invalid; keeping the previous 1 rule(s) [new]: ")
                .contains("rules[0] (broken).limit: expected");
    }

    @Test
    void anInvalidRulesFileStopsStartUpNamingTheRuleAndField() throws Exception {
        writeRules("rules: [{name: api, limit: 10/s, key: 'header:'}]");

        org.assertj.core.api.Assertions.assertThatThrownBy(() ->
                        FilterServer.start(Map.of("rules", "/WEB-INF/sluice-rules.yaml"), webRoot).close())
                .hasStackTraceContaining("Sluice rate limiting (filter sluice): invalid configuration: ")
                .hasStackTraceContaining("sluice-rules.yaml: rules[0] (api).key: expected a header name such as "
                        + "\"header:X-Api-Key\", got \"header:\"");
    }

    private static Handler capture(List<String> lines) {
        return new Handler() {
            @Override
            public void publish(LogRecord r) {
                lines.add(r.getMessage());
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
    }
}
