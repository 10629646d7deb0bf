package io.sluice.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import io.restassured.response.Response;
import io.sluice.core.Engine;
import io.sluice.core.policy.Policy;
import io.sluice.core.testing.Await;
import io.sluice.core.testing.RedisProcess;
import io.sluice.redis.AdmissionQueue;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rule in {@code enqueue} mode whose {@link AdmissionQueue} is on a Redis that is down when the application starts,
 * the application building the queue and starting its worker before the filter starts (as war-demo's
 * {@code DemoJobs} does): the application starts; a request over the rate is answered 429, not a 5xx, while the queue
 * cannot be offered to; once a redis-server listens on the queue's port, the next one is accepted (202) and processed,
 * its outcome read at its location. The rule counts in memory here: a Redis store's failure modes are
 * {@code RedisOutageIT}'s.
 */
class EnqueueRedisDownIT {

    private static final String RULES = "rules:\n"
            + "  - {name: post-jobs, paths: [/jobs], methods: [POST], limit: 1/1m, enqueue: jobs}\n";

    @TempDir
    Path dir;

    @Test
    void theApplicationStartsWithRedisDownAndItsQueueIsProcessedOnceRedisIsUp() throws Exception {
        int port = RedisProcess.freePort();
        Path rules = dir.resolve("rules.yaml");
        Files.writeString(rules, RULES);
        try (Engine engine = Engine.builder().build();
                AdmissionQueue queue = AdmissionQueue.builder("jobs").url("redis://127.0.0.1:" + port)
                        .pace(engine.limiter("jobs-pace", Policy.parse("100/1s"))).build()) {
            List<AdmissionQueue.Entry> handled = new CopyOnWriteArrayList<>();
            AdmissionQueue.Worker worker = queue.consume("workers", "w", handled::add);   // Redis is down
            try (FilterServer server = FilterServer.startWith(Map.of("rules", rules.toString()),
                    Map.of("io.sluice.queue.jobs", queue.asJobQueue()))) {
                post(server).then().statusCode(200);
                post(server).then().statusCode(429);            // over the rate, and the queue cannot be offered to
                server.client().get("/sluice-jobs/jobs/1-0").then().statusCode(503);

                try (RedisProcess redis = RedisProcess.startOn(port)) {
                    Response accepted = post(server);
                    accepted.then().statusCode(202).body("status", equalTo("QUEUED"));
                    String path = accepted.header("Location").substring("/app".length());
                    Await.until("the job processed", Duration.ofSeconds(20), () -> "DONE".equals(
                            server.client().get(path).then().statusCode(200).extract().jsonPath().getString("status")));
                    assertThat(handled).extracting(AdmissionQueue.Entry::id)
                            .containsExactly(accepted.jsonPath().getString("id"));
                    assertThat(worker.running()).isTrue();
                }
            }
        }
    }

    private static Response post(FilterServer server) {
        return server.client().contentType("application/json").body("{\"invoice\": 42}").post("/jobs");
    }
}
