package io.sluice.filter;

import static io.sluice.filter.AdminRequests.as;
import static io.sluice.filter.AdminRequests.yaml;
import static io.sluice.filter.HttpLoad.allowed;
import static io.sluice.filter.HttpLoad.awaitExactLimits;
import static io.sluice.filter.HttpLoad.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import io.restassured.path.json.JsonPath;
import io.sluice.core.testing.Await;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The control plane and overrides ({@link FaultMatrixIT}): two nodes (two Jettys, two filters) on one Redis, local rule
 * {@code 2/1h} per {@code X-Client}; through node A's admin endpoint a shared rules document raises it to {@code 3/1h}
 * and an override gives client {@code acme} {@code 5/1h}. In force means: each node's status shows the document's
 * version and the override, each node counts a fresh client exactly to the limit in force, both nodes are subscribed
 * to the fleet's channel, and a reset of {@code acme} on node A reaches node B, which counts {@code acme} exactly to
 * its override again.
 *
 * <p>While Redis fails, each node keeps the settings it has in force. When Redis comes back empty, the document and the
 * overrides are gone with the data, and every node returns to its local rules at its next version check: what is in
 * force follows what Redis holds, as a node started then would have it. A document written then ({@code 7/1h}),
 * numbered 1 again, is in force on both nodes.
 */
final class ControlPlaneOnRedis implements Capability {

    private static final String RULE = "per-header-x-client";
    private static final String CHANNEL = "sluice:fleet";
    private static final Duration WITHIN = Duration.ofSeconds(10);

    /** What both nodes have in force: the document's version, the overrides, the rule's limit and acme's. */
    private record InForce(int documentVersion, int overrides, int limit, int acme) {}

    private static final InForce LOCAL = new InForce(0, 0, 2, 2);
    private static final InForce SHARED = new InForce(1, 1, 3, 5);
    /** The document written after Redis lost the settings: version 1 again, no override. */
    private static final InForce REWRITTEN = new InForce(1, 0, 7, 7);

    private final FaultyRedis redis;
    private final FilterServer a;
    private final FilterServer b;
    private final AtomicLong sent = new AtomicLong();
    private InForce expected = LOCAL;
    private int round;

    ControlPlaneOnRedis(FaultyRedis redis) throws Exception {
        this.redis = redis;
        a = node(redis.url());
        b = node(redis.url());
    }

    private static FilterServer node(String url) throws Exception {
        return FilterServer.startOnSystemClock(Map.of("limit", "2/1h", "key", "header:X-Client",
                "exclude", "/sluice-admin/**", "store", url));
    }

    @Override
    public void arrange() {
        yaml(as(a, "alice"), "rules: [{name: " + RULE + ", key: \"header:X-Client\", limit: 3/1h}]\n")
                .put("/sluice-admin/rules").then().statusCode(200).body("version", equalTo(1));
        as(a, "alice").queryParam("rule", RULE).queryParam("value", "acme").queryParam("policy", "5/1h")
                .put("/sluice-admin/overrides").then().statusCode(200);
        expected = SHARED;
        awaitInForce();
    }

    @Override
    public HttpLoad load() {
        return new HttpLoad(2, () -> get(sent.getAndIncrement() % 2 == 0 ? a : b, "/", UUID.randomUUID().toString()));
    }

    /** Each node keeps what it has in force while Redis fails. */
    @Override
    public void duringFault() {
        for (FilterServer node : List.of(a, b)) {
            JsonPath status = status(node);
            assertThat(status.getInt("documentVersion")).as("document in force").isEqualTo(expected.documentVersion());
            assertThat(status.getInt("overrides")).as("overrides in force").isEqualTo(expected.overrides());
        }
    }

    @Override
    public void awaitRecovered(Fault fault) {
        if (fault.losesData()) {
            expected = LOCAL;
        }
        awaitInForce();
    }

    /** Waits (bounded) until {@link #expected} is in force on both nodes, as the class comment says. */
    private void awaitInForce() {
        for (FilterServer node : List.of(a, b)) {
            Await.until("document version " + expected.documentVersion() + " and " + expected.overrides()
                    + " overrides in force on a node", WITHIN, () -> {
                        JsonPath status = status(node);
                        return status.getInt("documentVersion") == expected.documentVersion()
                                && status.getInt("overrides") == expected.overrides();
                    });
        }
        round++;
        awaitExactLimits(a, "/", "a" + round, expected.limit());
        awaitExactLimits(b, "/", "b" + round, expected.limit());
        Await.until("both nodes subscribed to " + CHANNEL, WITHIN, () -> redis.subscribers(CHANNEL) == 2);
        as(a, "alice").queryParam("rule", RULE).queryParam("value", "acme").delete("/sluice-admin").then()
                .statusCode(204);
        Await.until("the reset of acme heard on node B", WITHIN, () -> get(b, "/", "acme").status() == 200);
        assertThat(allowed(b, "/", "acme", expected.acme() + 2)).as("acme's limit on node B, one used")
                .isEqualTo(expected.acme() - 1);
    }

    private static JsonPath status(FilterServer node) {
        return as(node, "ops").get("/sluice-admin/status").then().statusCode(200).extract().jsonPath();
    }

    @Override
    public Held verify(Fault fault, HttpLoad load, long healStartMillis) {
        assertThat(load.statuses.keySet()).as("fresh clients under an allow rule: every request admitted")
                .containsOnly(200);
        List<Object> overrides = as(b, "ops").get("/sluice-admin/overrides").then().statusCode(200).extract()
                .jsonPath().getList("key");
        assertThat(overrides).as("the overrides node B lists").hasSize(expected.overrides());
        if (fault.losesData()) {
            as(b, "ops").get("/sluice-admin/rules").then().statusCode(404);
            yaml(as(a, "alice"), "rules: [{name: " + RULE + ", key: \"header:X-Client\", limit: 7/1h}]\n")
                    .put("/sluice-admin/rules").then().statusCode(200).body("version", equalTo(1));
            expected = REWRITTEN;
            awaitInForce();
        }
        return new Held(0, (expected == SHARED ? "document v1 and 1 override in force on both nodes"
                : "both nodes on their local rules (Redis has no document), the override gone with the data; the"
                + " document written then (v1, 7/1h) in force on both") + ", resets heard");
    }

    @Override
    public void close() throws Exception {
        a.close();
        b.close();
    }
}
