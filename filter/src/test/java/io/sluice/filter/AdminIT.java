package io.sluice.filter;

import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The opt-in admin endpoint: inspect and reset a key, only for an authenticated caller in the admin role. */
class AdminIT {

    @Test
    void anAdminInspectsAndUnblocksAKey() throws Exception {
        try (FilterServer server = FilterServer.start(Map.of("limit", "2/1m", "exclude", "/sluice-admin"))) {
            server.client().get("/").then().statusCode(200);
            server.client().get("/").then().statusCode(200);
            server.client().get("/").then().statusCode(429);

            server.client().header("X-Test-User", "ops").header("X-Test-Role", "sluice-admin")
                    .queryParam("rule", "per-ip").queryParam("key", "127.0.0.1").get("/sluice-admin")
                    .then().statusCode(200).contentType("application/json").body("limit", equalTo(2))
                    .body("remaining", equalTo(0));
            server.client().header("X-Test-User", "ops").header("X-Test-Role", "sluice-admin")
                    .queryParam("rule", "per-ip").queryParam("key", "127.0.0.1").delete("/sluice-admin")
                    .then().statusCode(204);
            server.client().get("/").then().statusCode(200);
        }
    }

    @Test
    void aLongApiKeyIsGivenAsTheClientSendsItNotAsItsHash() throws Exception {
        String apiKey = "k-" + "0123456789".repeat(8);          // over 64 characters: stored as its hash
        try (FilterServer server = FilterServer.start(Map.of("limit", "1/1m", "key", "header:X-Api-Key",
                "exclude", "/sluice-admin"))) {
            server.client().header("X-Api-Key", apiKey).get("/").then().statusCode(200);
            server.client().header("X-Api-Key", apiKey).get("/").then().statusCode(429);

            server.client().header("X-Test-User", "ops").header("X-Test-Role", "sluice-admin")
                    .queryParam("rule", "per-header-x-api-key").queryParam("key", apiKey).get("/sluice-admin")
                    .then().statusCode(200).body("remaining", equalTo(1));     // as stored: no such key
            server.client().header("X-Test-User", "ops").header("X-Test-Role", "sluice-admin")
                    .queryParam("rule", "per-header-x-api-key").queryParam("value", apiKey).get("/sluice-admin")
                    .then().statusCode(200).body("remaining", equalTo(0));
            server.client().header("X-Test-User", "ops").header("X-Test-Role", "sluice-admin")
                    .queryParam("rule", "per-header-x-api-key").queryParam("value", " " + apiKey + " ")
                    .delete("/sluice-admin").then().statusCode(204);
            server.client().header("X-Api-Key", apiKey).get("/").then().statusCode(200);
            server.client().header("X-Test-User", "ops").header("X-Test-Role", "sluice-admin")
                    .queryParam("rule", "per-header-x-api-key").queryParam("key", "k").queryParam("value", "k")
                    .get("/sluice-admin").then().statusCode(400).body(containsString("either key"));
        }
    }

    @Test
    void aTierIsGivenAsItsSelectorSeesItAndAnUnknownOneIsNotFound() throws Exception {
        java.nio.file.Path rules = java.nio.file.Files.createTempFile("rules", ".yaml");
        java.nio.file.Files.writeString(rules, """
                rules:
                  - name: api
                    limit: 5/1m
                    tiers: {by: 'header:X-Plan', policies: {free: 2/1m, '#vip': 100/1m}}
                """);
        try (FilterServer server = FilterServer.start(Map.of("rules", rules.toString(), "exclude", "/sluice-admin"))) {
            for (String[] tier : new String[][] {{"free", "2"}, {"#vip", "100"}}) {
                server.client().header("X-Test-User", "ops").header("X-Test-Role", "sluice-admin")
                        .queryParam("rule", "api").queryParam("key", "127.0.0.1").queryParam("tier", tier[0])
                        .get("/sluice-admin").then().statusCode(200).body("limit", equalTo(Integer.parseInt(tier[1])));
            }
            server.client().header("X-Test-User", "ops").header("X-Test-Role", "sluice-admin")
                    .queryParam("rule", "api").queryParam("key", "127.0.0.1").queryParam("tier", "gold")
                    .get("/sluice-admin").then().statusCode(404).body("error", equalTo("no tier named gold in rule api"));
        } finally {
            java.nio.file.Files.deleteIfExists(rules);
        }
    }

    @Test
    void everyoneElseIsTurnedAway() throws Exception {
        try (FilterServer server = FilterServer.start(Map.of("limit", "2/1m", "exclude", "/sluice-admin"))) {
            server.client().queryParam("rule", "per-ip").queryParam("key", "127.0.0.1").delete("/sluice-admin")
                    .then().statusCode(403).body(containsString("role sluice-admin"));
            server.client().header("X-Test-User", "mallory").header("X-Test-Role", "user")
                    .queryParam("rule", "per-ip").queryParam("key", "127.0.0.1").get("/sluice-admin")
                    .then().statusCode(403);
            server.client().header("X-Test-User", "ops").header("X-Test-Role", "sluice-admin")
                    .queryParam("rule", "nope").queryParam("key", "k").get("/sluice-admin").then().statusCode(404);
            server.client().header("X-Test-User", "ops").header("X-Test-Role", "sluice-admin")
                    .queryParam("rule", "per-ip").get("/sluice-admin").then().statusCode(400);
        }
    }

    @Test
    void anUnreachableStoreIsA503NotA500() throws Exception {
        int closed;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            closed = s.getLocalPort();                   // nothing listens there once the socket is closed
        }
        try (FilterServer server = FilterServer.start(Map.of("limit", "2/1m", "exclude", "/sluice-admin",
                "store", "redis://127.0.0.1:" + closed))) {
            server.client().get("/").then().statusCode(200);        // the rule's failure mode: allow
            server.client().header("X-Test-User", "ops").header("X-Test-Role", "sluice-admin")
                    .queryParam("rule", "per-ip").queryParam("key", "127.0.0.1").get("/sluice-admin")
                    .then().statusCode(503).header("Retry-After", "1").body(containsString("store is unavailable"));
            server.client().header("X-Test-User", "ops").header("X-Test-Role", "sluice-admin")
                    .queryParam("rule", "per-ip").queryParam("key", "127.0.0.1").delete("/sluice-admin")
                    .then().statusCode(503);
        }
    }
}
