package io.sluice.filter;

import static io.sluice.filter.AdminRequests.admin;
import static io.sluice.filter.AdminRequests.body;
import static io.sluice.filter.AdminRequests.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.startsWith;

import io.sluice.core.key.KeyResolver;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.store.SharedSettings;
import io.sluice.core.testing.ForwardingStore;
import io.sluice.core.testing.ManualTimeSource;
import io.sluice.http.FrontDoor;
import io.sluice.http.Parameters;
import io.sluice.http.SluiceConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shared rules document through the admin endpoint: read, replaced by version, removed, layered over the rules. */
class AdminRulesIT {

    private static final String DOCUMENT = "rules: [{name: api, paths: [/api/**], limit: 2/1m}]\n";

    @TempDir
    Path dir;

    @Test
    void theDocumentIsReadReplacedAndRemovedByItsVersion() throws Exception {
        try (FilterServer server = FilterServer.start(Map.of("limit", "100/1m", "exclude", "/sluice-admin/**"))) {
            admin(server).get("/sluice-admin/rules").then().statusCode(404).contentType("application/json")
                    .body("version", equalTo(0)).body("error", containsString("no shared rules document"));
            yaml(admin(server), DOCUMENT).put("/sluice-admin/rules").then().statusCode(200).header("ETag", "\"1\"")
                    .body("version", equalTo(1));
            admin(server).get("/sluice-admin/rules").then().statusCode(200).contentType(startsWith("application/yaml"))
                    .header("ETag", "\"1\"").header("Cache-Control", "no-store").body(equalTo(DOCUMENT));

            String second = DOCUMENT.replace("2/1m", "3/1m");
            yaml(admin(server), second).header("If-Match", "\"1\"").put("/sluice-admin/rules").then().statusCode(200)
                    .body("version", equalTo(2));
            yaml(admin(server), DOCUMENT).header("If-Match", "\"1\"").put("/sluice-admin/rules").then().statusCode(412)
                    .header("ETag", "\"2\"").body("version", equalTo(2)).body("error", containsString("version 2"));
            admin(server).get("/sluice-admin/rules").then().body(equalTo(second));
            yaml(admin(server), DOCUMENT).header("If-Match", "1").put("/sluice-admin/rules").then().statusCode(400)
                    .body("error", containsString("If-Match"));
            yaml(admin(server), DOCUMENT).header("If-Match", "*").put("/sluice-admin/rules").then().statusCode(200)
                    .body("version", equalTo(3));

            admin(server).header("If-Match", "\"2\"").delete("/sluice-admin/rules").then().statusCode(412);
            admin(server).delete("/sluice-admin/rules").then().statusCode(204).header("ETag", "\"4\"");
            admin(server).get("/sluice-admin/rules").then().statusCode(404).body("version", equalTo(4));
            admin(server).delete("/sluice-admin/rules").then().statusCode(404);
            yaml(admin(server), DOCUMENT).header("If-Match", "*").put("/sluice-admin/rules").then().statusCode(412);
            admin(server).get("/sluice-admin/status").then().body("documentVersion", equalTo(4))
                    .body("rules.name", equalTo(List.of("per-ip")));
        }
    }

    @Test
    void anInvalidDocumentIsRefusedWhereItIsWrittenAndNothingChanges() throws Exception {
        try (FilterServer server = FilterServer.start(Map.of("limit", "100/1m", "exclude", "/sluice-admin/**"))) {
            yaml(admin(server), DOCUMENT).put("/sluice-admin/rules").then().statusCode(200);
            int entries = admin(server).get("/sluice-admin/audit").then().extract().jsonPath().getList("$").size();

            yaml(admin(server), "rules: [{name: api, limit: 100 per hour}]").put("/sluice-admin/rules").then()
                    .statusCode(400).contentType("application/json")
                    .body("error", startsWith("shared rules document: rules[0] (api).limit: "));
            yaml(admin(server), "rules: [{name: t, key: tenant, limit: 1/1m}]").put("/sluice-admin/rules").then()
                    .statusCode(400).body("error", containsString("\"tenant\""));
            yaml(admin(server), "rules: [{name: per-ip, limit: 1/1m}, {name: per-ip, limit: 2/1m}]")
                    .put("/sluice-admin/rules").then().statusCode(400).body("error", containsString("unique"));
            yaml(admin(server), "rules: [unclosed").put("/sluice-admin/rules").then().statusCode(400);

            admin(server).get("/sluice-admin/rules").then().statusCode(200).header("ETag", "\"1\"").body(equalTo(DOCUMENT));
            admin(server).get("/sluice-admin/audit").then().body("$", hasSize(entries));
            admin(server).get("/sluice-admin/status").then().body("documentVersion", equalTo(1))
                    .body("rejections", equalTo(0)).body("rules.name", equalTo(List.of("per-ip", "api")));
        }
    }

    @Test
    void onlyYamlOfAtMostTheDocumentsSizeIsTakenAndNoPostChangesAnything() throws Exception {
        try (FilterServer server = FilterServer.start(Map.of("limit", "100/1m", "exclude", "/sluice-admin/**"))) {
            byte[] document = DOCUMENT.getBytes(StandardCharsets.UTF_8);
            for (String type : List.of("text/plain", "application/octet-stream", "application/json",
                    "application/yaml; charset=ISO-8859-1")) {
                body(admin(server), type, document).put("/sluice-admin/rules").then().statusCode(415)
                        .body("error", containsString("application/yaml"));
            }
            admin(server).contentType("application/x-www-form-urlencoded").formParam("rules", DOCUMENT)
                    .put("/sluice-admin/rules").then().statusCode(415);
            admin(server).contentType("application/x-www-form-urlencoded").body("rules=x").post("/sluice-admin/rules")
                    .then().statusCode(405).header("Allow", "GET, HEAD, PUT, DELETE");
            for (int over : new int[] {1, 60_000}) {      // read and dropped before the answer: no reset connection
                byte[] tooLong = ("rules: []\n#" + "x".repeat(SharedSettings.MAX_DOCUMENT_BYTES + over - 11))
                        .getBytes(StandardCharsets.UTF_8);
                body(admin(server), "application/yaml", tooLong).put("/sluice-admin/rules").then().statusCode(413)
                        .body("error", containsString("at most 65536 bytes"));
            }
            body(admin(server), "application/yaml", new byte[] {'r', 'u', (byte) 0xff}).put("/sluice-admin/rules").then()
                    .statusCode(400).body("error", containsString("UTF-8"));
            admin(server).get("/sluice-admin/rules").then().statusCode(404).body("version", equalTo(0));

            String full = "rules: []\n#" + "x".repeat(SharedSettings.MAX_DOCUMENT_BYTES - 12) + "\n";
            assertThat(full.getBytes(StandardCharsets.UTF_8)).hasSize(SharedSettings.MAX_DOCUMENT_BYTES);
            body(admin(server), "text/yaml; charset=utf-8", full.getBytes(StandardCharsets.UTF_8))
                    .put("/sluice-admin/rules").then().statusCode(200).body("version", equalTo(1));
        }
    }

    private Path rulesFile(String yaml) throws Exception {
        Path file = dir.resolve("rules.yaml");
        Files.writeString(file, yaml);
        return file;
    }

    @Test
    void theDocumentsRulesReplaceLocalOnesInPlaceFollowThemAndMergeTheAllowlists() throws Exception {
        Path file = rulesFile("""
                rules:
                  - {name: login, paths: [/login], limit: 5/1m}
                  - {name: api, paths: [/api/**], limit: 100/1m}
                """);
        try (FilterServer server = FilterServer.start(Map.of("limit", "100/1m", "rules", file.toString(),
                "trusted-proxies", "127.0.0.1", "exclude", "/sluice-admin/**"))) {
            yaml(admin(server), """
                    allowlist: {addresses: [203.0.113.0/24]}
                    rules:
                      - {name: extra, paths: [/extra], limit: 1/1m}
                      - {name: api, paths: [/api/**], limit: 2/1m}
                    """).put("/sluice-admin/rules").then().statusCode(200);

            admin(server).get("/sluice-admin/status").then().statusCode(200).body("documentVersion", equalTo(1))
                    .body("rules.name", equalTo(List.of("per-ip", "login", "api", "extra")))
                    .body("rules.origin", equalTo(List.of("parameter", "file", "document", "document")));
            for (int status : new int[] {200, 200, 429}) {
                server.from("198.51.100.7").get("/api/books").then().statusCode(status);
            }
            server.from("198.51.100.7").get("/extra").then().statusCode(200);
            server.from("198.51.100.7").get("/extra").then().statusCode(429);
            for (int i = 0; i < 5; i++) {
                server.from("203.0.113.9").get("/api/books").then().statusCode(200);   // the document's allowlist
            }

            admin(server).delete("/sluice-admin/rules").then().statusCode(204);
            admin(server).get("/sluice-admin/status").then().body("rules.name", equalTo(List.of("per-ip", "login", "api")))
                    .body("rules.origin", equalTo(List.of("parameter", "file", "file")));
            for (int i = 0; i < 5; i++) {
                server.from("198.51.100.8").get("/api/books").then().statusCode(200);  // the file's 100/1m again
                server.from("198.51.100.8").get("/extra").then().statusCode(200);      // per-ip only
            }
            server.from("203.0.113.9").get("/api/books").then().statusCode(200);      // counted, allowed
            assertThat(admin(server).queryParam("rule", "api").queryParam("key", "203.0.113.9").get("/sluice-admin")
                    .then().extract().<Integer>path("remaining")).as("no longer allowlisted: counted").isEqualTo(99);
        }
    }

    @Test
    void parameterShadowStillPutsTheDocumentsRulesInShadowMode() throws Exception {
        try (FilterServer server = FilterServer.start(Map.of("limit", "100/1m", "shadow", "true",
                "exclude", "/sluice-admin/**"))) {
            yaml(admin(server), "rules: [{name: x, paths: [/x], limit: 1/1m, mode: enforce}]").put("/sluice-admin/rules")
                    .then().statusCode(200);
            server.client().get("/x").then().statusCode(200).header("X-Decision-Shadow-Denied", "false");
            server.client().get("/x").then().statusCode(200).header("X-Decision-Shadow-Denied", "true");
        }
    }

    @Test
    void aReloadedRulesFileKeepsTheDocumentsRulesOnTop() throws Exception {
        Path file = rulesFile("rules: [{name: api, paths: [/api/**], limit: 100/1m}]");
        try (FilterServer server = FilterServer.start(Map.of("rules", file.toString(), "reload-interval", "1s",
                "exclude", "/sluice-admin/**"))) {
            yaml(admin(server), DOCUMENT).put("/sluice-admin/rules").then().statusCode(200);
            Files.writeString(file, """
                    rules:
                      - {name: api, paths: [/api/**], limit: 500/1m}
                      - {name: late, paths: [/late], limit: 1/1m}
                    """);
            Files.setLastModifiedTime(file, FileTime.fromMillis(Files.getLastModifiedTime(file).toMillis() + 3_600_000));
            server.clock.advance(Duration.ofSeconds(2));
            server.client().get("/late").then().statusCode(200);                     // reloads, then counts

            admin(server).get("/sluice-admin/status").then().body("rules.name", equalTo(List.of("api", "late")))
                    .body("rules.origin", equalTo(List.of("document", "file")));
            server.client().get("/late").then().statusCode(429);
            server.client().get("/api").then().statusCode(200);
            server.client().get("/api").then().statusCode(200);
            server.client().get("/api").then().statusCode(429);                      // the document's 2/1m
        }
    }

    /** The remaining of key 127.0.0.1 under {@code rule}, as the admin endpoint inspects it. */
    private static int remaining(FilterServer server, String rule) {
        return admin(server).queryParam("rule", rule).queryParam("key", "127.0.0.1").get("/sluice-admin").then()
                .statusCode(200).extract().path("remaining");
    }

    @Test
    void aClientsCountSurvivesAnEditOfAnotherRuleAndOfItsRulesLimitButNotOfItsAlgorithm() throws Exception {
        try (FilterServer server = FilterServer.start(Map.of("limit", "3/1m", "algorithm", "fixed-window",
                "name", "a", "exclude", "/sluice-admin/**"))) {
            String b = "{name: b, paths: [/b], limit: %s, algorithm: fixed-window}";
            yaml(admin(server), "rules: [" + b.formatted("3/1m") + "]").put("/sluice-admin/rules").then().statusCode(200);
            server.client().get("/a").then().statusCode(200);
            server.client().get("/a").then().statusCode(200);
            assertThat(remaining(server, "a")).isEqualTo(1);

            yaml(admin(server), "rules: [" + b.formatted("10/1m") + "]").put("/sluice-admin/rules").then().statusCode(200);
            assertThat(remaining(server, "a")).as("an edit of b leaves a's count").isEqualTo(1);

            yaml(admin(server), "rules: [{name: a, limit: 5/1m, algorithm: fixed-window}, " + b.formatted("10/1m") + "]")
                    .put("/sluice-admin/rules").then().statusCode(200);
            assertThat(remaining(server, "a")).as("a, now the document's, at 5/1m: its 2 requests counted")
                    .isEqualTo(3);
            server.client().get("/a").then().statusCode(200).header("X-RateLimit-Remaining", "2");

            yaml(admin(server), "rules: [{name: a, limit: 5/1m, algorithm: sliding-window}, " + b.formatted("10/1m")
                    + "]").put("/sluice-admin/rules").then().statusCode(200);
            assertThat(remaining(server, "a")).as("another algorithm starts afresh").isEqualTo(5);
        }
    }

    private static FrontDoor node(ManualTimeSource time, SharedSettings shared, Map<String, KeyResolver> named) {
        ForwardingStore store = new ForwardingStore(MemoryStore.builder().timeSource(time).build()) {
            @Override
            public SharedSettings settings() {
                return shared;      // one store's settings, as the nodes on one Redis share them
            }
        };
        return FrontDoor.open(SluiceConfig.load(Parameters.of("sluice", Map.of("limit", "100/1m"), "test"),
                SluiceConfig.files(), named), time, store, List.of());
    }

    @Test
    void aDocumentThisNodeCannotUseIsShownInItsStatusAndItsRulesStay() throws Exception {
        ManualTimeSource time = new ManualTimeSource();
        SharedSettings shared = SharedSettings.local();
        try (FrontDoor writer = node(time, shared, Map.of("tenant", request -> "acme"));
                FrontDoor door = node(time, shared, Map.of());
                AdminServer server = new AdminServer(door)) {
            String tenants = "rules: [{name: per-tenant, key: tenant, limit: 5/1m}]";
            yaml(server.as("alice"), tenants).put("/sluice-admin/rules").then().statusCode(400)
                    .body("error", containsString("\"tenant\""));                    // refused where written
            writer.admin().replaceSharedRules(tenants, -1, "alice");                  // valid where it is written

            door.engine().operations().refresh();           // as the watcher does, on the fleet's message
            server.as("ops").get("/sluice-admin/status").then().statusCode(200).body("version", equalTo(1))
                    .body("documentVersion", equalTo(0)).body("rejectedVersion", equalTo(1))
                    .body("rejections", equalTo(1)).body("rejection", containsString("(per-tenant).key"))
                    .body("rules.name", equalTo(List.of("per-ip"))).body("rules.origin", equalTo(List.of("parameter")));
            server.as("ops").get("/sluice-admin/rules").then().statusCode(200).header("ETag", "\"1\"")
                    .body(equalTo(tenants));
            server.as("ops").get("/sluice-admin/audit").then().body("[0].who", equalTo("alice"))
                    .body("[0].action", equalTo("RULES_REPLACED"));

            yaml(server.as("bob"), "rules: [{name: per-ip, limit: 7/1m}]").header("If-Match", "\"1\"")
                    .put("/sluice-admin/rules").then().statusCode(200).body("version", equalTo(2));
            server.as("ops").get("/sluice-admin/status").then().body("documentVersion", equalTo(2))
                    .body("rejectedVersion", equalTo(0)).body("rejection", equalTo("")).body("rejections", equalTo(1))
                    .body("rules.origin", equalTo(List.of("document")));
        }
    }
}
