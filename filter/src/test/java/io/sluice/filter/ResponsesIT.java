package io.sluice.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.emptyString;
import static org.hamcrest.Matchers.equalTo;

import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a client sees: every header style and body format, field by field, with the clock under the test's control. */
class ResponsesIT {

    @TempDir
    Path dir;

    /** fixed-window 2/1m, 45 s into the window: 15 s to its end. */
    private static FilterServer fixedWindow(Map<String, String> extra) throws Exception {
        Map<String, String> parameters = new HashMap<>(Map.of("limit", "2/1m", "algorithm", "fixed-window"));
        parameters.putAll(extra);
        FilterServer server = FilterServer.start(parameters);
        server.clock.advance(Duration.ofSeconds(45));
        return server;
    }

    @Test
    void allowedResponsesCarryBothHeaderStylesOfTheBindingRule() throws Exception {
        try (FilterServer server = fixedWindow(Map.of())) {
            server.client().get("/").then().statusCode(200)
                    .body(equalTo("hello"))
                    .header("RateLimit-Policy", "\"per-ip\";q=2;w=60")
                    .header("RateLimit", "\"per-ip\";r=1;t=15")
                    .header("X-RateLimit-Limit", "2")
                    .header("X-RateLimit-Remaining", "1")
                    .header("X-RateLimit-Reset", Long.toString(ManualClock.START_SECONDS + 60))
                    .header("Retry-After", (String) null);
            server.client().get("/").then().statusCode(200)
                    .header("RateLimit", "\"per-ip\";r=0;t=15")
                    .header("X-RateLimit-Remaining", "0");
        }
    }

    @Test
    void aDeniedRequestGets429RetryAfterNoStoreAndTheErrorEnvelope() throws Exception {
        try (FilterServer server = fixedWindow(Map.of())) {
            server.client().get("/");
            server.client().get("/");

            Response denied = server.client().get("/");

            denied.then().statusCode(429)
                    .contentType("application/json")
                    .header("Retry-After", "15")
                    .header("Cache-Control", "no-store")
                    .header("RateLimit-Policy", "\"per-ip\";q=2;w=60")
                    .header("RateLimit", "\"per-ip\";r=0;t=15")
                    .header("X-RateLimit-Remaining", "0")
                    .header("X-RateLimit-Reset", Long.toString(ManualClock.START_SECONDS + 60));
            JsonPath body = JsonPath.from(denied.asString());
            assertThat(body.getMap("$")).containsOnlyKeys("error");
            assertThat(body.getMap("error")).containsOnlyKeys("code", "message", "context");
            assertThat(body.getString("error.code")).isEqualTo("rate_limited");
            assertThat(body.getString("error.message")).isEqualTo("Request quota exceeded. Wait 15 seconds and try again.");
            assertThat(body.getMap("error.context")).containsOnlyKeys("renewal", "policy", "limit", "remaining");
            assertThat(body.getLong("error.context.renewal")).isEqualTo((ManualClock.START_SECONDS + 60) * 1000);
            assertThat(body.getString("error.context.policy")).isEqualTo("per-ip");
            assertThat(body.getLong("error.context.limit")).isEqualTo(2);
            assertThat(body.getLong("error.context.remaining")).isZero();

            server.clock.advance(Duration.ofSeconds(15));
            server.client().get("/").then().statusCode(200).header("RateLimit", "\"per-ip\";r=1;t=60");
        }
    }

    @Test
    void theProblemBodyFollowsRfc9457AndTheDraftsQuotaExceededType() throws Exception {
        try (FilterServer server = fixedWindow(Map.of("body", "problem"))) {
            server.client().get("/");
            server.client().get("/");

            Response denied = server.client().get("/");

            denied.then().statusCode(429).contentType("application/problem+json").header("Retry-After", "15");
            JsonPath body = JsonPath.from(denied.asString());
            assertThat(body.getMap("$")).containsOnlyKeys("type", "title", "status", "detail", "violated-policies");
            assertThat(body.getString("type")).isEqualTo("https://iana.org/assignments/http-problem-types#quota-exceeded");
            assertThat(body.getString("title")).isEqualTo("Quota Exceeded");
            assertThat(body.getInt("status")).isEqualTo(429);
            assertThat(body.getString("detail")).isEqualTo("Request quota exceeded. Wait 15 seconds and try again.");
            assertThat(body.getList("violated-policies")).isEqualTo(List.of("per-ip"));
        }
    }

    @Test
    void noBodyLeavesOnlyTheHeaders() throws Exception {
        try (FilterServer server = fixedWindow(Map.of("body", "none"))) {
            server.client().get("/");
            server.client().get("/");

            server.client().get("/").then().statusCode(429).body(emptyString()).header("Retry-After", "15")
                    .header("Content-Type", (String) null);
        }
    }

    @Test
    void headerStylesAndTheResetFormatAreConfigurable() throws Exception {
        try (FilterServer server = fixedWindow(Map.of("headers", "ietf"))) {
            server.client().get("/").then().header("RateLimit", "\"per-ip\";r=1;t=15").header("X-RateLimit-Limit", (String) null);
        }
        try (FilterServer server = fixedWindow(Map.of("headers", "legacy", "reset-format", "delta-seconds"))) {
            server.client().get("/").then().header("RateLimit", (String) null).header("RateLimit-Policy", (String) null)
                    .header("X-RateLimit-Limit", "2").header("X-RateLimit-Reset", "15");
        }
        try (FilterServer server = fixedWindow(Map.of("headers", "none"))) {
            server.client().get("/").then().statusCode(200).header("RateLimit", (String) null).header("X-RateLimit-Limit", (String) null);
            server.client().get("/");
            server.client().get("/").then().statusCode(429).header("Retry-After", "15").header("RateLimit", (String) null);
        }
    }

    @Test
    void aHashedPartitionKeyNeverShowsTheKey() throws Exception {
        try (FilterServer server = FilterServer.start(Map.of("limit", "10/1m", "key", "header:X-Api-Key",
                "partition-key", "hash"))) {
            String rateLimit = server.client().header("X-Api-Key", "secret-1").get("/").header("RateLimit");
            String policy = server.client().header("X-Api-Key", "secret-1").get("/").header("RateLimit-Policy");
            String other = server.client().header("X-Api-Key", "secret-2").get("/").header("RateLimit");

            String pk = rateLimit.replaceAll(".*;pk=", "");
            assertThat(pk).matches(":[A-Za-z0-9+/]{22}==:");
            assertThat(policy).isEqualTo("\"per-header-x-api-key\";q=10;w=60;pk=" + pk);
            assertThat(other).doesNotEndWith(pk);
            assertThat(rateLimit + policy).doesNotContain("secret");
        }
    }

    @Test
    void deniedResponsesCarryTheConfiguredExtraHeaders() throws Exception {
        try (FilterServer server = fixedWindow(Map.of("deny-headers",
                "Access-Control-Allow-Origin: *\nAccess-Control-Expose-Headers: Retry-After, RateLimit, RateLimit-Policy"))) {
            server.client().get("/").then().statusCode(200).header("Access-Control-Allow-Origin", (String) null);
            server.client().get("/");
            server.client().get("/").then().statusCode(429)
                    .header("Access-Control-Allow-Origin", "*")
                    .header("Access-Control-Expose-Headers", "Retry-After, RateLimit, RateLimit-Policy");
        }
    }

    @Test
    void anApplicationsCorsHeaderOnTheResponseStandsAndIsNotRepeated() throws Exception {
        try (FilterServer server = fixedWindow(Map.of("deny-headers",
                "Access-Control-Allow-Origin: *\nAccess-Control-Expose-Headers: Retry-After"))) {
            server.client().get("/");
            server.client().get("/");
            io.restassured.response.Response denied = server.client().header("X-Test-Cors-Origin", "https://app.example")
                    .get("/");

            denied.then().statusCode(429).header("Access-Control-Expose-Headers", "Retry-After");
            assertThat(denied.headers().getValues("Access-Control-Allow-Origin")).as("one value, the application's")
                    .containsExactly("https://app.example");
        }
    }

    @Test
    void aCorsPreflightIsNeitherCountedNorAnswered429() throws Exception {
        try (FilterServer server = fixedWindow(Map.of())) {
            for (int i = 0; i < 4; i++) {
                server.client().header("Origin", "https://app.example").header("Access-Control-Request-Method", "POST")
                        .options("/").then().statusCode(200).header("RateLimit", (String) null);
            }
            server.client().get("/").then().statusCode(200).header("X-RateLimit-Remaining", "1");
            server.client().options("/").then().statusCode(200)     // an OPTIONS that is no preflight counts
                    .header("X-RateLimit-Remaining", "0");
            server.client().get("/").then().statusCode(429);
        }
    }

    @Test
    void retryAfterFollowsEachAlgorithm() throws Exception {
        // 2/1m: GCRA and the token bucket free one permit every 30 s; the sliding log frees the oldest after 60 s
        Map<String, String> expected = Map.of("gcra", "30", "token-bucket", "30", "sliding-log", "60", "fixed-window", "60");
        for (Map.Entry<String, String> e : expected.entrySet()) {
            try (FilterServer server = FilterServer.start(Map.of("limit", "2/1m", "algorithm", e.getKey()))) {
                server.client().get("/").then().statusCode(200);
                server.clock.advance(Duration.ofMillis(1));
                server.client().get("/").then().statusCode(200);
                Response denied = server.client().get("/");

                denied.then().statusCode(429);
                String retryAfter = denied.header("Retry-After");
                String t = denied.header("RateLimit").replaceAll(".*;t=", "");
                assertThat(retryAfter).as(e.getKey()).isEqualTo(e.getValue());
                assertThat(Long.parseLong(retryAfter)).as("never earlier than t").isGreaterThanOrEqualTo(Long.parseLong(t));

                server.clock.advance(Duration.ofSeconds(Long.parseLong(retryAfter)));
                server.client().get("/").then().statusCode(200);
            }
        }
    }

    @Test
    void aRequestThatCanNeverPassGetsCappedNumbersAndSaysSo() throws Exception {
        Path rules = dir.resolve("rules.yaml");
        Files.writeString(rules, "rules: [{name: export, paths: [/export], limit: 2/1m, cost: 5}]");
        try (FilterServer server = FilterServer.start(Map.of("rules", rules.toString()))) {
            Response denied = server.client().get("/export");

            denied.then().statusCode(429).header("Retry-After", "31622400")
                    .header("RateLimit-Policy", "\"export\";q=2;w=60");
            assertThat(denied.header("RateLimit")).as("draft -11: the next unit is back in one interval")
                    .isEqualTo("\"export\";r=2;t=30");
            assertThat(JsonPath.from(denied.asString()).getString("error.message"))
                    .isEqualTo("Request quota exceeded. This request costs more than the quota allows, so retrying cannot help.");
            server.client().get("/other").then().statusCode(200);
        }
    }

    @Test
    void theDecisionIsLeftForTheApplicationAsARequestAttribute() throws Exception {
        try (FilterServer server = fixedWindow(Map.of("name", "site"))) {
            server.client().get("/").then().statusCode(200)
                    .header("X-Decision-Allowed", "true")
                    .header("X-Decision-Binding", "site")
                    .header("X-Decision-Shadow-Denied", "false");
        }
    }
}
