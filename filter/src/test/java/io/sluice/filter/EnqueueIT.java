package io.sluice.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.nullValue;

import io.restassured.response.Response;
import io.sluice.core.testing.Await;
import io.sluice.core.Engine;
import io.sluice.core.policy.Policy;
import io.sluice.core.testing.RedisProcess;
import io.sluice.redis.AdmissionQueue;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rule in {@code enqueue} mode on a real Redis: over the immediate rate a {@code POST} is accepted into an
 * {@link AdmissionQueue} (202, {@code Location}), a worker processes it and the client reads its outcome there; a full
 * queue answers 429 with the queue's {@code Retry-After}; an oversized body 413; an unregistered queue stops start-up.
 */
class EnqueueIT {

    private static final String RULES = "rules:\n"
            + "  - {name: post-jobs, paths: [/jobs], methods: [POST], limit: 1/1m, enqueue: jobs}\n";

    @TempDir
    Path dir;

    private RedisProcess redis;
    private Engine engine;
    private AdmissionQueue queue;
    private FilterServer server;

    @BeforeEach
    void startRedis() throws Exception {
        redis = RedisProcess.start();
        engine = Engine.builder().build();
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : new AutoCloseable[] {server, queue, engine, redis}) {
            if (c != null) {
                c.close();
            }
        }
    }

    private void start(String pace, UnaryOperator<AdmissionQueue.Builder> configure) throws Exception {
        queue = configure.apply(AdmissionQueue.builder("jobs").url(redis.url())
                .pace(engine.limiter("jobs-pace", Policy.parse(pace)))).build();
        Path rules = dir.resolve("rules.yaml");
        Files.writeString(rules, RULES);
        server = FilterServer.startWith(Map.of("rules", rules.toString()),
                Map.of("io.sluice.queue.jobs", queue.asJobQueue()));
    }

    private Response post(String body) {
        return server.client().contentType("application/json").body(body).post("/jobs");
    }

    @Test
    void aPostOverTheRateIsAcceptedAndProcessedAndItsOutcomeReadAtItsLocation() throws Exception {
        start("100/1s", b -> b);
        post("{\"n\": 1}").then().statusCode(200).body(equalTo("hello"));
        Response accepted = post("{\"n\": 2}");
        accepted.then().statusCode(202)
                .header("Location", matchesPattern("/app/sluice-jobs/jobs/[0-9]+-[0-9]+"))
                .header("RateLimit-Policy", notNullValue())
                .header("Retry-After", nullValue())
                .header("Cache-Control", "no-store")
                .body("status", equalTo("QUEUED")).body("queue", equalTo("jobs"));
        String location = accepted.header("Location");
        String id = accepted.jsonPath().getString("id");
        assertThat(location).endsWith("/" + id);
        String path = location.substring("/app".length());
        server.client().get(path).then().statusCode(200).header("Cache-Control", "no-store")
                .body("id", equalTo(id)).body("status", equalTo("QUEUED")).body("deliveries", equalTo(0));

        List<AdmissionQueue.Entry> handled = new CopyOnWriteArrayList<>();
        queue.consume("workers", "test-worker", handled::add);
        Await.until("the job processed", Duration.ofSeconds(10), () -> "DONE".equals(
                server.client().get(path).then().statusCode(200).extract().jsonPath().getString("status")));
        server.client().get(path).then().body("deliveries", equalTo(1)).body("at", notNullValue())
                .body("$", org.hamcrest.Matchers.not(org.hamcrest.Matchers.hasKey("worker")));
        assertThat(handled).hasSize(1);
        assertThat(handled.get(0).id()).isEqualTo(id);
        assertThat(handled.get(0).payload()).contains("\"method\":\"POST\"", "\"path\":\"/jobs\"",
                "\"contentType\":\"application/json", "\"body\":\"{\\\"n\\\": 2}\"");
    }

    @Test
    void aFullQueueAnswers429WithTheQueuesRetryAfterAndTheUsualBody() throws Exception {
        start("1/5m", b -> b.bound(1));
        post("{}").then().statusCode(200);
        post("{}").then().statusCode(202);
        post("{}").then().statusCode(429)
                .header("Retry-After", "300")          // the queue's pace: one place in 5 minutes, over the rule's 1m
                .header("RateLimit-Policy", notNullValue())
                .contentType(containsString("json"));
        assertThat(queue.pending()).isEqualTo(1);
    }

    @Test
    void aBodyOverTheQueuesPayloadBoundIs413() throws Exception {
        start("100/1s", b -> b.maxPayloadBytes(200));
        post("{}").then().statusCode(200);
        post("{\"x\": \"" + "a".repeat(300) + "\"}").then().statusCode(413)
                .body("maxPayloadBytes", equalTo(200));
        post("{}").then().statusCode(202);
        assertThat(queue.pending()).isEqualTo(1);
    }

    @Test
    void unknownAndMalformedJobsAre404AndAGetIsNeverEnqueued() throws Exception {
        start("100/1s", b -> b);
        server.client().get("/sluice-jobs/jobs/1-0").then().statusCode(404);
        server.client().get("/sluice-jobs/jobs/1-0x").then().statusCode(404);
        server.client().get("/sluice-jobs/other/1-0").then().statusCode(404);
        server.client().get("/sluice-jobs/jobs").then().statusCode(404);
        server.client().post("/sluice-jobs/jobs/1-0").then().statusCode(405);
        server.client().get("/jobs").then().statusCode(200);        // the rule limits POST only
        assertThat(queue.pending()).isZero();
    }

    @Test
    void aRuleNamingAnUnregisteredQueueStopsStartUp() throws Exception {
        Path rules = dir.resolve("rules.yaml");
        Files.writeString(rules, RULES);
        assertThatThrownBy(() -> FilterServer.startWith(Map.of("rules", rules.toString()), Map.of()).close())
                .satisfies(e -> assertThat(messages(e)).contains("rule post-jobs.enqueue", "jobs",
                        "io.sluice.queue.jobs"));
    }

    private static String messages(Throwable e) {
        StringBuilder b = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            b.append(t.getMessage()).append('\n');
            for (Throwable s : t.getSuppressed()) {
                b.append(messages(s));
            }
        }
        return b.toString();
    }
}
