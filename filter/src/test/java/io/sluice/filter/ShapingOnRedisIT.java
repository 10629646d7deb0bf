package io.sluice.filter;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.testing.RedisProcess;
import jakarta.servlet.AsyncContext;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Traffic shaping over real HTTP with a real Redis shared by the nodes: queueing, concurrency leases across nodes,
 * counting by outcome, and warm-up ramping the whole fleet together. Redis runs on the nodes' manual clocks
 * ({@code ?time=application}).
 */
class ShapingOnRedisIT {

    private static RedisProcess redis;
    private static int database;

    @BeforeAll
    static void startRedis() throws Exception {
        redis = RedisProcess.start();
    }

    @AfterAll
    static void stopRedis() throws Exception {
        redis.close();
    }

    /**
     * A fresh database per test, so that tests sharing the server never share keys; a time budget no load on CI
     * reaches (the 50 ms default is not what these test).
     */
    private static String store() {
        return redis.url() + "/" + (++database % 16) + "?time=application&timeout=2s";
    }

    @Test
    void aBurstOfBPlusFiveIsQueuedInRedisAndFiveAreRejected() throws Exception {
        try (FilterServer server = FilterServer.start(Map.of("limit", "10/1s burst 4 max-wait 2s", "store", store()))) {
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
            for (int i = 0; i < 9; i++) {
                responses.add(http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
                        + "/app/")).build(), HttpResponse.BodyHandlers.ofString()));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (server.scheduler.pending() < 3 || responses.stream().filter(CompletableFuture::isDone).count() < 6) {
                assertThat(System.nanoTime()).as("1 passed, 5 rejected, 3 queued").isLessThan(deadline);
                Thread.onSpinWait();
            }
            assertThat(responses.stream().filter(f -> f.isDone() && f.join().statusCode() == 429).count()).isEqualTo(5);
            for (int released = 1; released <= 3; released++) {
                server.clock.advance(Duration.ofMillis(100));
                assertThat(server.scheduler.runDue()).isEqualTo(1);
            }
            List<Integer> statuses = new ArrayList<>();
            for (CompletableFuture<HttpResponse<String>> r : responses) {
                statuses.add(r.get(10, TimeUnit.SECONDS).statusCode());
            }
            assertThat(statuses).as("the one passed and the 3 queued, once released, are let through")
                    .containsExactlyInAnyOrder(200, 200, 200, 200, 429, 429, 429, 429, 429);
        }
    }

    @Test
    void aLeaseHeldOnOneNodeLimitsTheOtherAndExpiresIfItsNodeDies() throws Exception {
        String store = store();
        try (FilterServer a = FilterServer.start(Map.of("limit", "1 concurrent lease 30s", "key", "global", "store", store));
                FilterServer b = FilterServer.start(Map.of("limit", "1 concurrent lease 30s", "key", "global", "store", store))) {
            HttpClient http = HttpClient.newHttpClient();
            CompletableFuture<HttpResponse<String>> held = http.sendAsync(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + a.port() + "/app/async")).build(), HttpResponse.BodyHandlers.ofString());
            AsyncContext async = a.held.poll(10, TimeUnit.SECONDS);
            assertThat(async).isNotNull();
            b.client().get("/").then().statusCode(429)
                    .header("RateLimit-Policy", "\"per-global\";q=1;qu=\"concurrent-requests\"");
            b.clock.advance(Duration.ofSeconds(30));            // node a never releases: as if it had died
            b.client().get("/").then().statusCode(200);
            async.complete();
            held.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void onlyFailedLoginsAreCountedAcrossTheFleet() throws Exception {
        Path rules = Files.createTempFile("rules", ".yaml");
        Files.writeString(rules, """
                rules:
                  - name: failed-logins
                    paths: [/sign-in]
                    key: header:X-User
                    limit: 3/1m
                    algorithm: sliding-log
                    count-status: [401]
                """);
        String store = store();
        try (FilterServer a = FilterServer.start(Map.of("rules", rules.toString(), "store", store));
                FilterServer b = FilterServer.start(Map.of("rules", rules.toString(), "store", store))) {
            for (int i = 0; i < 5; i++) {
                a.client().header("X-User", "ada").header("X-Password", "secret").post("/sign-in").then().statusCode(200);
            }
            a.client().header("X-User", "ada").post("/sign-in").then().statusCode(401);
            b.client().header("X-User", "ada").post("/sign-in").then().statusCode(401);
            a.client().header("X-User", "ada").post("/sign-in").then().statusCode(401);
            b.client().header("X-User", "ada").header("X-Password", "secret").post("/sign-in").then().statusCode(429);
        } finally {
            Files.deleteIfExists(rules);
        }
    }

    @Test
    void warmUpRampsTheWholeFleetTogether() throws Exception {
        String policy = "10/1s warm-up 2s";
        List<Integer> fleet = new ArrayList<>();
        List<Integer> single = new ArrayList<>();
        String store = store();
        try (FilterServer a = FilterServer.start(Map.of("limit", policy, "key", "global", "store", store));
                FilterServer b = FilterServer.start(Map.of("limit", policy, "key", "global", "store", store));
                FilterServer alone = FilterServer.start(Map.of("limit", policy, "key", "global"))) {
            for (int i = 0; i < 120; i++) {                      // every 25 ms for 3 s, alternating between the nodes
                FilterServer node = i % 2 == 0 ? a : b;
                fleet.add(node.client().get("/").statusCode());
                single.add(alone.client().get("/").statusCode());
                for (FilterServer s : List.of(a, b, alone)) {
                    s.clock.advance(Duration.ofMillis(25));
                }
            }
        }
        assertThat(fleet).as("two nodes on Redis admit exactly what one node admits alone").isEqualTo(single);
        long early = single.subList(0, 40).stream().filter(s -> s == 200).count();
        long late = single.subList(80, 120).stream().filter(s -> s == 200).count();
        assertThat(early).as("cold: fewer than later").isLessThan(late);
        assertThat(late).as("warmer, never above the stable 10 per second").isLessThanOrEqualTo(10);
    }
}
