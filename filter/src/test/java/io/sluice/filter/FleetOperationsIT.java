package io.sluice.filter;

import static io.sluice.filter.AdminRequests.as;
import static io.sluice.filter.AdminRequests.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import io.restassured.path.json.JsonPath;
import io.sluice.core.testing.Await;
import io.sluice.core.testing.RedisProcess;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An operator and a fleet: three nodes (three Jettys, three filters) on one real Redis, changed through the admin
 * endpoint of one of them. The nodes' version check runs once an hour, so what reaches the others within a second
 * reached them by the fleet's message; each wait below is bounded and polls the node's own view, never a fixed sleep.
 */
class FleetOperationsIT {

    private static final String KEY_HEADER = "X-Api-Key";
    private static final String RULE = "per-header-x-api-key";
    /** The longest wait for a node to hear of a change: far above the milliseconds a message takes. */
    private static final Duration WITHIN = Duration.ofSeconds(5);

    private RedisProcess redis;
    private FilterServer a;
    private FilterServer b;
    private FilterServer c;

    @BeforeEach
    void start() throws Exception {
        redis = RedisProcess.start();
        a = node();
        b = node();
        c = node();
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable node : new AutoCloseable[] {a, b, c, redis}) {
            if (node != null) {
                node.close();
            }
        }
    }

    private FilterServer node() throws Exception {
        return FilterServer.start(Map.of("limit", "2/1h", "key", "header:" + KEY_HEADER,
                "exclude", "/sluice-admin/**", "store", redis.url() + "?time=application&timeout=2s",
                "settings-interval", "1h"));
    }

    @Test
    void aSharedRuleChangeReachesEveryNodeWithinASecond() {
        long start = System.nanoTime();
        yaml(as(a, "alice"), "rules: [{name: " + RULE + ", key: \"header:" + KEY_HEADER + "\", limit: 3/1h}]\n")
                .put("/sluice-admin/rules").then().statusCode(200).body("version", equalTo(1));
        for (FilterServer node : List.of(b, c)) {
            awaitStatus(node, "documentVersion", 1);
        }
        long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
        assertThat(elapsedMillis).as("every node applied it").isLessThan(1_000);
        assertThat(allowed("acme", b, c, a, b, c)).as("3/1h on every node, counted once for the fleet").isEqualTo(3);
        b.client().header(KEY_HEADER, "other").get("/").then().statusCode(200)
                .header("RateLimit-Policy", containsString("q=3"));
    }

    @Test
    void anOverrideRaisesOneKeyOnlyOnEveryNode() {
        as(a, "alice").queryParam("rule", RULE).queryParam("value", "acme").queryParam("policy", "5/1h")
                .put("/sluice-admin/overrides").then().statusCode(200);
        awaitStatus(b, "overrides", 1);
        awaitStatus(c, "overrides", 1);
        assertThat(allowed("acme", b, c, b, c, b, c, b)).as("acme: 5 across the fleet").isEqualTo(5);
        assertThat(allowed("other", b, c, b)).as("another key keeps the rule's 2").isEqualTo(2);

        as(c, "bob").queryParam("rule", RULE).queryParam("value", "acme").delete("/sluice-admin/overrides")
                .then().statusCode(204);
        awaitStatus(a, "overrides", 0);
        awaitStatus(b, "overrides", 0);
        assertThat(allowed("acme", a, b)).as("back to the rule's 2, which acme used up").isZero();
    }

    @Test
    void aBanOnOneNodeHoldsOnTheOthersAndAnUnblockOnOneLiftsItOnAll() throws Exception {
        try (FilterServer banning = FilterServer.start(Map.of("limit", "1/1s penalty 1h", "key", "header:" + KEY_HEADER,
                "exclude", "/sluice-admin/**", "store", redis.url() + "?time=application&timeout=2s",
                "settings-interval", "1h"));
                FilterServer other = FilterServer.start(Map.of("limit", "1/1s penalty 1h",
                        "key", "header:" + KEY_HEADER, "exclude", "/sluice-admin/**",
                        "store", redis.url() + "?time=application&timeout=2s", "settings-interval", "1h"))) {
            banning.client().header(KEY_HEADER, "abuser").get("/").then().statusCode(200);
            banning.client().header(KEY_HEADER, "abuser").get("/").then().statusCode(429);
            banning.client().header(KEY_HEADER, "abuser").get("/").then().statusCode(429)
                    .header("Retry-After", "3600");            // came back while denied: banned for the penalty
            banning.clock.advance(Duration.ofSeconds(5));
            other.clock.advance(Duration.ofSeconds(5));      // past the 1 s window: only the ban can deny now
            Await.until("the ban reaches the other node", WITHIN,
                    () -> other.client().header(KEY_HEADER, "abuser").get("/").statusCode() == 429);
            other.client().header(KEY_HEADER, "someone").get("/").then().statusCode(200);

            as(banning, "alice").queryParam("rule", RULE).queryParam("value", "abuser").delete("/sluice-admin")
                    .then().statusCode(204);
            Await.until("the unblock reaches the other node", WITHIN,
                    () -> other.client().header(KEY_HEADER, "abuser").get("/").statusCode() == 200);
            JsonPath audit = as(other, "carol").get("/sluice-admin/audit").then().statusCode(200).extract().jsonPath();
            assertThat(audit.getString("[0].action")).isEqualTo("KEY_RESET");
            assertThat(audit.getString("[0].who")).isEqualTo("alice");
        }
    }

    @Test
    void anInvalidSharedDocumentChangesNothing() {
        yaml(as(a, "alice"), "rules: [{name: " + RULE + ", limit: 3/1h}]\n").put("/sluice-admin/rules").then()
                .statusCode(200);
        awaitStatus(c, "documentVersion", 1);
        yaml(as(a, "alice"), "rules: [{name: " + RULE + ", limit: three an hour}]\n").put("/sluice-admin/rules")
                .then().statusCode(400).body("error", containsString("three an hour"));
        yaml(as(b, "alice"), "rules: [{name: " + RULE + ", limit: 3/1h, colour: red}]\n").put("/sluice-admin/rules")
                .then().statusCode(400).body("error", containsString("colour"));
        for (FilterServer node : List.of(a, b, c)) {
            as(node, "ops").get("/sluice-admin/status").then().statusCode(200).body("documentVersion", equalTo(1))
                    .body("rejections", equalTo(0));
        }
        as(c, "ops").get("/sluice-admin/rules").then().statusCode(200).header("ETag", "\"1\"");
        assertThat(as(c, "ops").get("/sluice-admin/audit").then().extract().jsonPath().getList("$"))
                .as("only the valid document was recorded").hasSize(1);
    }

    @Test
    void theAuditTrailListsEachActionWithWhoDidIt() {
        yaml(as(a, "alice"), "rules: [{name: " + RULE + ", limit: 3/1h}]\n").put("/sluice-admin/rules").then()
                .statusCode(200);
        as(b, "bob").queryParam("rule", RULE).queryParam("value", "acme").queryParam("policy", "10/1h")
                .queryParam("for", "7d").put("/sluice-admin/overrides").then().statusCode(200);
        as(c, "carol").queryParam("rule", RULE).queryParam("value", "acme").queryParam("policy", "20/1h")
                .put("/sluice-admin/overrides").then().statusCode(200);
        as(a, "dave").queryParam("rule", RULE).queryParam("value", "acme").delete("/sluice-admin").then()
                .statusCode(204);
        JsonPath audit = as(b, "ops").get("/sluice-admin/audit").then().statusCode(200).extract().jsonPath();
        assertThat(audit.getList("action")).containsExactly("KEY_RESET", "OVERRIDE_SET", "OVERRIDE_SET",
                "RULES_REPLACED");
        assertThat(audit.getList("who")).containsExactly("dave", "carol", "bob", "alice");
        assertThat(audit.getString("[1].previous")).as("carol's replaced bob's").startsWith("10/1h");
        assertThat(audit.getString("[1].key")).as("the key as kept at rest: hashed").startsWith("#")
                .doesNotContain("acme");
    }

    /** @return how many of the requests of key {@code key}, one to each node in turn, were allowed */
    private static int allowed(String key, FilterServer... nodes) {
        int n = 0;
        for (FilterServer node : nodes) {
            if (node.client().header(KEY_HEADER, key).get("/").statusCode() == 200) {
                n++;
            }
        }
        return n;
    }

    private static void awaitStatus(FilterServer node, String field, int value) {
        Await.until(field + " " + value + " on a node", WITHIN, () -> as(node, "ops").get("/sluice-admin/status")
                .then().statusCode(200).extract().jsonPath().getInt(field) == value);
    }
}
