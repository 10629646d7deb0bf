package io.sluice.filter;

import static io.sluice.filter.AdminRequests.admin;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.nullValue;

import io.sluice.core.Engine;
import io.sluice.core.testing.LogCapture;
import io.sluice.core.testing.RedisProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fail-open is loud: with a real redis-server killed under the filter, the admin endpoint's status says since when the
 * store fails and which rules answer by which failure mode, the log says it once, and both say when the rules are back
 * on the store once Redis is restarted.
 */
class StoreStatusIT {

    private static final String START = Instant.ofEpochSecond(ManualClock.START_SECONDS).toString();
    private static final String RULES = """
            rules:
              - name: site
                limit: 1000/1m
              - name: login
                paths: [/sign-in]
                limit: 1000/1m
                on-store-failure: deny
              - name: export
                paths: [/export/**]
                limit: 1000/1m
                on-store-failure: local
            """;

    @TempDir
    Path webRoot;

    @Test
    void theStatusShowsTheRulesByFailureModeWhileRedisIsDownAndTheStoreUpOnceItIsBack() throws Exception {
        Path file = webRoot.resolve("WEB-INF/sluice-rules.yaml");
        Files.createDirectories(file.getParent());
        Files.writeString(file, RULES);
        try (RedisProcess redis = RedisProcess.start(); LogCapture log = new LogCapture(Engine.class.getName());
                FilterServer server = FilterServer.start(Map.of("rules", "/WEB-INF/sluice-rules.yaml", "store",
                        redis.url(), "node-count", "2", "exclude", "/sluice-admin/**"), webRoot)) {
            server.client().get("/").then().statusCode(200);
            admin(server).get("/sluice-admin/status").then().statusCode(200).body("store.state", equalTo("up"))
                    .body("store.since", nullValue()).body("store.failing.allow", empty())
                    .body("store.failing.deny", empty()).body("rules.onStoreFailure", contains("allow", "deny", "local"));

            redis.kill();
            for (int i = 0; i < 10; i++) {
                server.client().get("/").then().statusCode(200);              // allow: unlimited meanwhile
            }
            server.client().get("/sign-in").then().statusCode(503);           // deny: refused meanwhile

            admin(server).get("/sluice-admin/status").then().statusCode(200).body("store.state", equalTo("failing"))
                    .body("store.since", equalTo(START)).body("store.failing.allow", contains("site"))
                    .body("store.failing.deny", contains("login")).body("store.failing.local", contains("export"))
                    .body("store.outageDecisions", greaterThanOrEqualTo(8));
            assertThat(log.errors()).as("one line, however many requests").singleElement().asString()
                    .contains("rate-limit store RedisStore failing since " + START, "unlimited (allow): site",
                            "refusing with 503 (deny): login", "on this node's share (local, limit / 2): export");

            redis.restart();
            server.clock.advance(Duration.ofSeconds(3));             // the breaker's cool-down has passed
            server.client().get("/").then().statusCode(200).header("X-Decision-Binding", "site");

            admin(server).get("/sluice-admin/status").then().statusCode(200).body("store.state", equalTo("up"))
                    .body("store.since", nullValue()).body("store.failing.allow", empty())
                    .body("store.failureModeDecisions", greaterThanOrEqualTo(11));
            assertThat(log.at(Level.INFO).stream().filter(l -> l.contains(" answers again after 3000 ms failing")))
                    .singleElement().asString().contains("back on the store: were unlimited (allow): site; were "
                            + "refusing with 503 (deny): login; were on this node's share (local, limit / 2): export");
            assertThat(log.errors()).hasSize(1);
        }
    }
}
