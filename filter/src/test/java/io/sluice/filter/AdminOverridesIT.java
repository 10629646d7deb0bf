package io.sluice.filter;

import static io.sluice.filter.AdminRequests.admin;
import static io.sluice.filter.AdminRequests.as;
import static io.sluice.filter.AdminRequests.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.emptyString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.nullValue;

import io.restassured.path.json.JsonPath;
import io.restassured.specification.RequestSpecification;
import io.sluice.core.store.AuditEntry;
import io.sluice.core.store.KeyOverride;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.store.SharedDocument;
import io.sluice.core.store.SharedSettings;
import io.sluice.core.store.SharedSnapshot;
import io.sluice.core.store.StoreException;
import io.sluice.core.testing.ForwardingStore;
import io.sluice.core.testing.ManualTimeSource;
import io.sluice.http.FrontDoor;
import io.sluice.http.Parameters;
import io.sluice.http.SluiceConfig;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Per-key overrides, the audit trail and the status through the admin endpoint; its paths, methods and failures. */
class AdminOverridesIT {

    private static final String RULE = "per-header-x-api-key";
    private static final Map<String, String> API_KEYS = Map.of("limit", "2/1m", "key", "header:X-Api-Key",
            "exclude", "/sluice-admin/**");
    private static final String START = Instant.ofEpochSecond(ManualClock.START_SECONDS).toString();

    private static int allowed(FilterServer server, String apiKey, int requests) {
        int allowed = 0;
        for (int i = 0; i < requests; i++) {
            if (server.client().header("X-Api-Key", apiKey).get("/").statusCode() == 200) {
                allowed++;
            }
        }
        return allowed;
    }

    private static RequestSpecification override(RequestSpecification request, String value, String policy) {
        return request.queryParam("rule", RULE).queryParam("value", value).queryParam("policy", policy);
    }

    @Test
    void anOverrideRaisesOneKeyOnlyUntilItEnds() throws Exception {
        try (FilterServer server = FilterServer.start(API_KEYS)) {
            override(admin(server), "acme", "5/1m").queryParam("for", "7d").put("/sluice-admin/overrides").then()
                    .statusCode(200).contentType("application/json").body("rule", equalTo(RULE))
                    .body("key", equalTo("acme")).body("policy", equalTo("5/1m (gcra)")).body("who", equalTo("ops"))
                    .body("at", equalTo(START))
                    .body("until", equalTo(Instant.parse(START).plus(Duration.ofDays(7)).toString()));

            assertThat(allowed(server, "acme", 6)).isEqualTo(5);
            assertThat(allowed(server, "beta", 6)).isEqualTo(2);
            admin(server).get("/sluice-admin/overrides").then().statusCode(200).body("$", hasSize(1))
                    .body("[0].key", equalTo("acme"));
            admin(server).get("/sluice-admin/status").then().body("overrides", equalTo(1));

            server.clock.advance(Duration.ofDays(7));
            assertThat(allowed(server, "acme", 6)).as("ended: the rule's policy again").isEqualTo(2);
            admin(server).get("/sluice-admin/overrides").then().body("$", hasSize(0));
        }
    }

    @Test
    void anOverrideRemovedLeavesTheKeyCountingUnderTheRule() throws Exception {
        try (FilterServer server = FilterServer.start(API_KEYS)) {
            override(admin(server), "acme", "5/1m").put("/sluice-admin/overrides").then().statusCode(200)
                    .body("until", nullValue());
            assertThat(allowed(server, "acme", 3)).isEqualTo(3);

            admin(server).queryParam("rule", RULE).queryParam("value", "acme").delete("/sluice-admin/overrides").then()
                    .statusCode(204);
            assertThat(allowed(server, "acme", 1)).as("its count kept: over the rule's 2").isZero();
            admin(server).queryParam("rule", RULE).queryParam("value", "acme").delete("/sluice-admin/overrides").then()
                    .statusCode(404).body("error", containsString("no override"));
        }
    }

    @Test
    void badOverridesAreRefused() throws Exception {
        try (FilterServer server = FilterServer.start(API_KEYS)) {
            override(admin(server), "acme", "lots").put("/sluice-admin/overrides").then().statusCode(400)
                    .body("error", containsString("policy"));
            override(admin(server), "acme", "5 concurrent").put("/sluice-admin/overrides").then().statusCode(400)
                    .body("error", containsString("cannot use gcra"));      // the rule's algorithm, not another
            override(admin(server), "acme", "5/1m").queryParam("for", "soon").put("/sluice-admin/overrides").then()
                    .statusCode(400).body("error", containsString("for"));
            override(admin(server), "acme", "5/1m").queryParam("for", "3651d").put("/sluice-admin/overrides").then()
                    .statusCode(400).body("error", containsString("at most 3650d"));
            admin(server).queryParam("rule", "nope").queryParam("key", "k").queryParam("policy", "5/1m")
                    .put("/sluice-admin/overrides").then().statusCode(404).body("error", equalTo("no rule named nope"));
            admin(server).queryParam("rule", RULE).queryParam("key", "k").put("/sluice-admin/overrides").then()
                    .statusCode(400);
            override(admin(server), "acme", "5/1m").queryParam("key", "acme").put("/sluice-admin/overrides").then()
                    .statusCode(400);
            admin(server).contentType("application/x-www-form-urlencoded").formParam("rule", RULE)
                    .formParam("value", "acme").formParam("policy", "5/1m").post("/sluice-admin/overrides").then()
                    .statusCode(405).header("Allow", "GET, HEAD, PUT, DELETE");
            admin(server).get("/sluice-admin/overrides").then().body("$", hasSize(0));
            admin(server).get("/sluice-admin/audit").then().body("$", hasSize(0));
        }
    }

    @Test
    void overridesBeyondTheMostThatHoldAreAConflict() throws Exception {
        ManualTimeSource time = new ManualTimeSource();
        SharedSettings settings = SharedSettings.local();
        for (int i = 0; i < SharedSettings.MAX_OVERRIDES; i++) {
            settings.putOverride(new KeyOverride("per-ip", "10.0." + (i / 256) + "." + (i % 256), "5/1m (gcra)", 0,
                    "bulk", 1));
        }
        try (FrontDoor door = door(time, settings); AdminServer server = new AdminServer(door)) {
            server.as("ops").queryParam("rule", "per-ip").queryParam("key", "203.0.113.9").queryParam("policy", "9/1m")
                    .put("/sluice-admin/overrides").then().statusCode(409).body("error", containsString("10000"));
            server.as("ops").queryParam("rule", "per-ip").queryParam("key", "10.0.0.7").queryParam("policy", "9/1m")
                    .put("/sluice-admin/overrides").then().statusCode(200);          // one that holds: replaced
        }
    }

    @Test
    void theAuditTrailListsEachActionNewestFirstWithWhoWhenAndWhatWasThere() throws Exception {
        // a document quoted whole in "previous": quotes, backslashes, tabs, non-ASCII, and longer than an echo
        String first = "# \"café\" \\ \t " + "long comment ".repeat(40) + "\nrules: [{name: api, limit: 9/1m}]\n";
        try (FilterServer server = FilterServer.start(API_KEYS)) {
            yaml(as(server, "alice"), first).put("/sluice-admin/rules").then().statusCode(200);
            yaml(as(server, "bob"), "rules: []").put("/sluice-admin/rules").then().statusCode(200);
            override(as(server, "alice"), "acme", "5/1m").put("/sluice-admin/overrides").then().statusCode(200);
            override(as(server, "bob"), "acme", "9/1m").queryParam("for", "1d").put("/sluice-admin/overrides").then()
                    .statusCode(200);
            as(server, "bob").queryParam("rule", RULE).queryParam("value", "acme").delete("/sluice-admin/overrides")
                    .then().statusCode(204);
            as(server, "carol").queryParam("rule", RULE).queryParam("value", "acme").delete("/sluice-admin").then()
                    .statusCode(204);

            String body = admin(server).get("/sluice-admin/audit").then().statusCode(200).contentType("application/json")
                    .header("Cache-Control", "no-store").extract().asString();
            assertThat(body).as("ASCII: everything else escaped").matches("\\p{ASCII}*").contains("caf\\u00e9");
            JsonPath audit = JsonPath.from(body);
            String until = "9/1m (gcra) until " + (ManualClock.START_MICROS / 1000 + 86_400_000);
            assertThat(audit.getList("action")).containsExactly("KEY_RESET", "OVERRIDE_REMOVED", "OVERRIDE_SET",
                    "OVERRIDE_SET", "RULES_REPLACED", "RULES_REPLACED");
            assertThat(audit.getList("who")).containsExactly("carol", "bob", "bob", "alice", "bob", "alice");
            assertThat(audit.getList("rule")).containsExactly(RULE, RULE, RULE, RULE, "", "");
            assertThat(audit.getList("key")).containsExactly("acme", "acme", "acme", "acme", "", "");
            assertThat(audit.getList("value")).containsExactly("", "", until, "5/1m (gcra)", "version 2", "version 1");
            assertThat(audit.getList("previous")).containsExactly("", until, "5/1m (gcra)", "", first, "");
            assertThat(audit.getList("at")).containsOnly(START);
            assertThat(audit.getList("id")).doesNotHaveDuplicates().hasSize(6);

            admin(server).queryParam("max", "2").get("/sluice-admin/audit").then().body("$", hasSize(2))
                    .body("action", equalTo(List.of("KEY_RESET", "OVERRIDE_REMOVED")));
            for (String max : List.of("0", "1001", "lots", "-1")) {
                admin(server).queryParam("max", max).get("/sluice-admin/audit").then().statusCode(400)
                        .body("error", containsString("max between 1 and 1000"));
            }
        }
    }

    @Test
    void theStatusTellsTheVersionsInForceTheOverridesAndWhereEachRuleComesFrom() throws Exception {
        try (FilterServer server = FilterServer.start(API_KEYS)) {
            admin(server).get("/sluice-admin/status").then().statusCode(200).body("version", equalTo(0))
                    .body("documentVersion", equalTo(0)).body("rejectedVersion", equalTo(0))
                    .body("rejection", emptyString()).body("rejections", equalTo(0)).body("overrides", equalTo(0))
                    .body("rules.name", equalTo(List.of(RULE))).body("rules.origin", equalTo(List.of("parameter")));
            yaml(admin(server), "rules: [{name: extra, limit: 9/1m}]").put("/sluice-admin/rules").then().statusCode(200);
            override(admin(server), "acme", "5/1m").put("/sluice-admin/overrides").then().statusCode(200);

            admin(server).get("/sluice-admin/status").then().body("version", equalTo(2))
                    .body("documentVersion", equalTo(1)).body("overrides", equalTo(1))
                    .body("rules.name", equalTo(List.of(RULE, "extra")))
                    .body("rules.origin", equalTo(List.of("parameter", "document")));
        }
    }

    @Test
    void everyPathChecksTheCallerFirstThenServesOnlyItsMethods() throws Exception {
        try (FilterServer server = FilterServer.start(API_KEYS)) {
            for (String path : List.of("/rules", "/overrides", "/audit", "/status", "/nope")) {
                server.client().get("/sluice-admin" + path).then().statusCode(403).header("Cache-Control", "no-store")
                        .header("X-Content-Type-Options", "nosniff");
                server.client().header("X-Test-User", "mallory").header("X-Test-Role", "user")
                        .request("PUT", "/sluice-admin" + path).then().statusCode(403);
            }
            for (String path : List.of("/nope", "/rules/", "/status/x")) {
                admin(server).get("/sluice-admin" + path).then().statusCode(404).contentType("application/json")
                        .body("error", containsString("no such admin path"));
            }
            admin(server).get("/sluice-admin/").then().statusCode(400).body("error", containsString("either key"));
            String[][] refused = {{"POST", "/rules", "GET, HEAD, PUT, DELETE"}, {"PATCH", "/rules", "GET, HEAD, PUT, DELETE"},
                    {"POST", "/overrides", "GET, HEAD, PUT, DELETE"}, {"PUT", "/status", "GET, HEAD"},
                    {"DELETE", "/audit", "GET, HEAD"}, {"OPTIONS", "/audit", "GET, HEAD"}, {"TRACE", "/status", "GET, HEAD"}};
            for (String[] r : refused) {
                admin(server).request(r[0], "/sluice-admin" + r[1]).then().statusCode(405).header("Allow", r[2])
                        .header("Cache-Control", "no-store").header("X-Content-Type-Options", "nosniff");
            }
            admin(server).head("/sluice-admin/status").then().statusCode(200).header("X-Content-Type-Options", "nosniff");
            admin(server).head("/sluice-admin/rules").then().statusCode(404);
        }
    }

    /** Shared settings that fail, as Redis's do while it cannot be reached, once {@link #down} is set. */
    private static final class FailingSettings implements SharedSettings {
        private final SharedSettings local = SharedSettings.local();
        volatile boolean down;

        private <T> T up(T value) {
            if (down) {
                throw new StoreException("Redis call failed (redis://10.0.0.5:6379): Connection refused");
            }
            return value;
        }

        @Override
        public long version() {
            return up(local).version();
        }

        @Override
        public SharedSnapshot read() {
            return up(local).read();
        }

        @Override
        public SharedDocument replaceDocument(String text, long expectedVersion, String who, long nowMillis) {
            return up(local).replaceDocument(text, expectedVersion, who, nowMillis);
        }

        @Override
        public KeyOverride putOverride(KeyOverride override) {
            return up(local).putOverride(override);
        }

        @Override
        public KeyOverride removeOverride(String rule, String key, String who, long nowMillis) {
            return up(local).removeOverride(rule, key, who, nowMillis);
        }

        @Override
        public void record(AuditEntry entry) {
            up(local).record(entry);
        }

        @Override
        public List<AuditEntry> audit(int max) {
            return up(local).audit(max);
        }
    }

    private static FrontDoor door(ManualTimeSource time, SharedSettings settings) {
        ForwardingStore store = new ForwardingStore(MemoryStore.builder().timeSource(time).build()) {
            @Override
            public SharedSettings settings() {
                return settings;
            }
        };
        return FrontDoor.open(SluiceConfig.load(Parameters.of("sluice", Map.of("limit", "2/1m"), "test"),
                SluiceConfig.files()), time, store, List.of());
    }

    @Test
    void aStoreThatCannotAnswerIsA503OnEveryPathThatReadsOrWritesIt() throws Exception {
        FailingSettings settings = new FailingSettings();
        try (FrontDoor door = door(new ManualTimeSource(), settings); AdminServer server = new AdminServer(door)) {
            settings.down = true;
            for (String[] call : new String[][] {{"GET", "/rules"}, {"DELETE", "/rules"}, {"GET", "/overrides"},
                    {"PUT", "/overrides?rule=per-ip&key=k&policy=5/1m"}, {"DELETE", "/overrides?rule=per-ip&key=k"},
                    {"GET", "/audit"}, {"DELETE", "?rule=per-ip&key=k"}}) {
                server.as("ops").request(call[0], "/sluice-admin" + call[1]).then().statusCode(503)
                        .header("Retry-After", "1").body("error", equalTo("the rate-limit store is unavailable"));
            }
            yaml(server.as("ops"), "rules: []").put("/sluice-admin/rules").then().statusCode(503)
                    .body(org.hamcrest.Matchers.not(containsString("10.0.0.5")));
            server.as("ops").get("/sluice-admin/status").then().statusCode(200);   // this node's: no store call
        }
    }
}
