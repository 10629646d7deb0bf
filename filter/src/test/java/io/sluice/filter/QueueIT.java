package io.sluice.filter;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Queue mode over real HTTP: requests that fit the bucket wait their turn in asynchronous mode and leave at the rate;
 * the rest are rejected at once; no request thread waits. The scheduler runs on the test's manual clock.
 */
class QueueIT {

    private static final int BURST = 4;

    @Test
    void aBurstOfBPlusFiveQueuesBReleasedAtTheRateAndRejectsFive() throws Exception {
        try (FilterServer server = FilterServer.start(Map.of("limit", "10/1s burst " + BURST + " max-wait 2s"))) {
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
            for (int i = 0; i < BURST + 5; i++) {
                responses.add(http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/app/"))
                        .build(), HttpResponse.BodyHandlers.ofString()));
            }
            awaitDone(responses, 6);                                  // the first passes at once, five are rejected
            assertThat(statuses(responses)).containsOnly(200, 429, 0);
            assertThat(count(responses, 429)).isEqualTo(5);
            assertThat(count(responses, 200)).as("the head of the queue leaves at once").isEqualTo(1);
            awaitPending(server, BURST - 1);      // each queued request's thread schedules it, maybe after the rejections
            assertThat(server.scheduler.pending()).as("queued").isEqualTo(BURST - 1);
            awaitNoThreadInsideTheFilter();

            for (int released = 2; released <= BURST; released++) {
                server.clock.advance(Duration.ofMillis(99));
                assertThat(server.scheduler.runDue()).as("not before its turn").isZero();
                server.clock.advance(Duration.ofMillis(1));
                assertThat(server.scheduler.runDue()).as("one every 100 ms").isEqualTo(1);
                awaitDone(responses, 5 + released);
                assertThat(count(responses, 200)).isEqualTo(released);
            }
            for (CompletableFuture<HttpResponse<String>> r : responses) {
                HttpResponse<String> response = r.get();
                if (response.statusCode() == 429) {
                    assertThat(response.headers().firstValue("Retry-After")).isPresent();
                }
            }
        }
    }

    @Test
    void aRequestThatWouldWaitLongerThanMaxWaitIsRejectedAtOnce() throws Exception {
        try (FilterServer server = FilterServer.start(Map.of("limit", "1/1s burst 10 max-wait 1s"))) {
            server.client().get("/").then().statusCode(200);
            // the second waits 1 s (allowed, queued); the third would wait 2 s: rejected without waiting
            HttpClient http = HttpClient.newHttpClient();
            CompletableFuture<HttpResponse<String>> queued = http.sendAsync(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + server.port() + "/app/")).build(), HttpResponse.BodyHandlers.ofString());
            awaitPending(server, 1);
            server.client().get("/").then().statusCode(429).header("Retry-After", "1");
            server.clock.advance(Duration.ofSeconds(1));
            server.scheduler.runDue();
            assertThat(queued.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        }
    }

    /**
     * Over real HTTP, a queued request of a destroyed filter gets the filter's 503: {@code Retry-After},
     * {@code Cache-Control: no-store} and the configured body, written by the scheduler's thread.
     */
    @Test
    void aQueuedRequestOfADestroyedFilterGets503WithRetryAfterAndTheConfiguredBody() throws Exception {
        try (FilterServer server = FilterServer.start(Map.of("limit", "1/1s burst 10 max-wait 2s", "body", "problem"))) {
            server.client().get("/").then().statusCode(200);
            CompletableFuture<HttpResponse<String>> queued = HttpClient.newHttpClient().sendAsync(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + server.port() + "/app/")).build(), HttpResponse.BodyHandlers.ofString());
            awaitPending(server, 1);
            server.filter.destroy();                    // as the container does, with the request still queued
            server.clock.advance(Duration.ofSeconds(1));
            assertThat(server.scheduler.runDue()).isEqualTo(1);

            HttpResponse<String> response = queued.get(10, TimeUnit.SECONDS);
            assertThat(response.statusCode()).isEqualTo(503);
            assertThat(response.headers().allValues("Retry-After")).containsExactly("1");
            assertThat(response.headers().allValues("Cache-Control")).containsExactly("no-store");
            assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                    type -> assertThat(type).startsWith("application/problem+json"));
            assertThat(response.body()).isEqualTo("{\"type\":\"about:blank\",\"title\":\"Service Unavailable\","
                    + "\"status\":503,\"detail\":\"The service is shutting down. Wait 1 second and try again.\"}");
        }
    }

    /** @return a rules file: a queue per client (burst 5, waits up to 2 s), and one request in flight at a time */
    private static java.nio.file.Path queueAndOneInFlight() throws java.io.IOException {
        java.nio.file.Path file = java.nio.file.Files.createTempFile("rules", ".yaml");
        java.nio.file.Files.writeString(file, """
                rules:
                  - name: queue
                    limit: 10/1s burst 5 max-wait 2s
                    key: ip
                  - name: in-flight
                    limit: 1 concurrent
                    key: global
                """);
        return file;
    }

    @Test
    void aQueuedRequestKeepsItsConcurrencyLeaseUntilItCompletes() throws Exception {
        java.nio.file.Path file = queueAndOneInFlight();
        try (FilterServer server = FilterServer.start(Map.of("rules", file.toString()))) {
            HttpClient http = HttpClient.newHttpClient();
            server.client().get("/").then().statusCode(200);         // lease taken and released
            awaitNothingInFlight(server);
            server.clock.advance(Duration.ofMillis(100));
            server.client().get("/").then().statusCode(200);         // its turn already: no wait
            awaitNothingInFlight(server);
            CompletableFuture<HttpResponse<String>> queued = http.sendAsync(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + server.port() + "/app/")).build(), HttpResponse.BodyHandlers.ofString());
            awaitPending(server, 1);
            server.client().get("/").then().statusCode(429);         // the queued request holds the only lease
            server.clock.advance(Duration.ofSeconds(1));
            server.scheduler.runDue();
            assertThat(queued.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            awaitAdmitted(server);
        } finally {
            java.nio.file.Files.deleteIfExists(file);
        }
    }

    /**
     * A request refused because the queue is full (here it holds none) holds no concurrency lease: the engine, asked
     * by the filter before it reports the decision, releases the lease the admission took.
     */
    @Test
    void aRequestRefusedBecauseTheQueueIsFullHoldsNoLease() throws Exception {
        java.nio.file.Path file = queueAndOneInFlight();
        try (FilterServer server = FilterServer.start(Map.of("rules", file.toString()), 0)) {
            server.client().get("/").then().statusCode(200);
            awaitNothingInFlight(server);
            server.clock.advance(Duration.ofMillis(100));
            server.client().get("/").then().statusCode(200);         // its turn already: no wait
            awaitNothingInFlight(server);
            server.client().get("/").then().statusCode(429).header("Retry-After", "1");   // would wait 100 ms
            assertThat(server.scheduler.pending()).as("not queued").isZero();
            awaitNothingInFlight(server);
        } finally {
            java.nio.file.Files.deleteIfExists(file);
        }
    }

    /**
     * A queued request dispatched to a servlet that starts an async cycle of its own: its lease is held through that
     * cycle too, and released when the servlet completes it.
     */
    @Test
    void aQueuedRequestToAnAsyncServletKeepsItsLeaseUntilTheServletCompletes() throws Exception {
        java.nio.file.Path file = queueAndOneInFlight();
        try (FilterServer server = FilterServer.start(Map.of("rules", file.toString()))) {
            HttpClient http = HttpClient.newHttpClient();
            server.client().get("/").then().statusCode(200);
            awaitNothingInFlight(server);
            CompletableFuture<HttpResponse<String>> queued = http.sendAsync(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + server.port() + "/app/async")).build(),
                    HttpResponse.BodyHandlers.ofString());
            awaitPending(server, 1);
            server.clock.advance(Duration.ofMillis(100));
            assertThat(server.scheduler.runDue()).isEqualTo(1);
            jakarta.servlet.AsyncContext held = server.held.poll(10, TimeUnit.SECONDS);
            assertThat(held).as("dispatched to its servlet, which went async").isNotNull();
            server.clock.advance(Duration.ofMillis(200));
            server.client().get("/").then().statusCode(429);         // the servlet's cycle still holds the lease
            held.getResponse().getWriter().write("done");
            held.complete();
            assertThat(queued.get(10, TimeUnit.SECONDS).body()).isEqualTo("done");
            awaitAdmitted(server);
        } finally {
            java.nio.file.Files.deleteIfExists(file);
        }
    }

    @Test
    void theRequestsQueuedAtOnceAreBoundedHoweverManyClientsThereAre() throws Exception {
        int bound = 3;
        try (FilterServer server = FilterServer.start(Map.of("limit", "10/1s burst " + BURST + " max-wait 2s",
                "trusted-proxies", "127.0.0.1"), bound)) {
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            List<CompletableFuture<HttpResponse<String>>> queued = new ArrayList<>();
            for (int client = 1; client <= bound + 2; client++) {
                String ip = "198.51.100." + client;
                server.from(ip).get("/").then().statusCode(200);      // each client's first passes at once
                if (client <= bound) {                                // its second waits its turn (100 ms)
                    queued.add(http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
                            + "/app/")).header("X-Forwarded-For", ip).build(), HttpResponse.BodyHandlers.ofString()));
                    awaitPending(server, client);
                } else {                                              // no room left in the queue: refused at once
                    server.from(ip).get("/").then().statusCode(429).header("Retry-After", "1");
                }
            }
            assertThat(server.scheduler.pending()).as("at most the bound waits, whatever the number of clients")
                    .isEqualTo(bound);
            assertThat(server.filter.queued()).isEqualTo(bound);

            server.clock.advance(Duration.ofMillis(100));
            assertThat(server.scheduler.runDue()).isEqualTo(bound);
            awaitDone(queued, bound);
            assertThat(statuses(queued)).containsOnly(200);
            assertThat(server.filter.queued()).as("dispatched: no longer waiting").isZero();

            // room again: a client's next request that must wait is queued, not refused
            String ip = "198.51.100." + (bound + 3);
            server.from(ip).get("/").then().statusCode(200);
            CompletableFuture<HttpResponse<String>> next = http.sendAsync(HttpRequest.newBuilder(URI.create(
                    "http://127.0.0.1:" + server.port() + "/app/")).header("X-Forwarded-For", ip).build(),
                    HttpResponse.BodyHandlers.ofString());
            awaitPending(server, 1);
            server.clock.advance(Duration.ofMillis(100));
            server.scheduler.runDue();
            assertThat(next.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        }
    }

    /**
     * A shadow queue ({@code mode: shadow}) never holds a request: each is answered at once, however far back in its
     * line it would have been, and keeps its concurrency lease. The manual clock never moves here, so a request held
     * for its turn would never be answered: each is awaited for a bounded time.
     */
    @Test
    void aShadowQueueAnswersEveryRequestAtOnceAndReportsTheWaitItWouldHaveImposed() throws Exception {
        java.nio.file.Path file = java.nio.file.Files.createTempFile("rules", ".yaml");
        java.nio.file.Files.writeString(file, """
                rules:
                  - name: trial-queue
                    limit: 1/1s burst 10 max-wait 1m
                    key: ip
                    mode: shadow
                  - name: in-flight
                    limit: 5 concurrent
                    key: global
                """);
        try (FilterServer server = FilterServer.start(Map.of("rules", file.toString()));
                io.sluice.core.testing.LogCapture log = new io.sluice.core.testing.LogCapture(
                        "io.sluice.http.ShadowReport")) {
            HttpClient http = HttpClient.newHttpClient();
            for (int i = 0; i < 4; i++) {
                HttpResponse<String> response = http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                        + server.port() + "/app/")).build(), HttpResponse.BodyHandlers.ofString())
                        .get(10, TimeUnit.SECONDS);        // held for its turn, it would never come: time stands still
                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(response.headers().firstValue("X-Decision-Shadow-Delay")).as("the wait it would have had")
                        .hasValue(Long.toString(i * 1_000_000L));
                assertThat(response.headers().firstValue("RateLimit-Policy")).as("the enforced rule's numbers")
                        .hasValueSatisfying(policy -> assertThat(policy).startsWith("\"in-flight\""));
            }
            assertThat(server.scheduler.pending()).as("nothing queued").isZero();
            assertThat(server.filter.queued()).isZero();
            awaitNoThreadInsideTheFilter();
            awaitNothingInFlight(server, 5);
            assertThat(log.messages()).singleElement().asString().endsWith("shadow mode: would have delayed "
                    + "{trial-queue=1 (up to 1s)} (first delay; next report in at most a minute)");
        } finally {
            java.nio.file.Files.deleteIfExists(file);
        }
    }

    /**
     * The queue full (here it holds none): a request that an enforced queue admits after a delay is refused by that
     * rule, not by a shadow queue whose would-be turn is as far away (a shadow refusal denies nothing, and the request
     * would pass without the lease its admission took); and a request that only a shadow queue would have delayed is
     * not refused, and keeps its lease while it runs.
     */
    @Test
    void aFullQueueRefusesByTheEnforcedRuleAndAShadowQueueNeverLosesARequestsLease() throws Exception {
        java.nio.file.Path file = java.nio.file.Files.createTempFile("rules", ".yaml");
        java.nio.file.Files.writeString(file, """
                rules:
                  - name: trial-queue
                    limit: 2/1s burst 10 max-wait 1m
                    key: ip
                    mode: shadow
                    paths: [/, /async]
                  - name: queue
                    limit: 2/1s burst 10 max-wait 1m
                    key: ip
                    paths: [/]
                  - name: in-flight
                    limit: 1 concurrent
                    key: global
                """);
        try (FilterServer server = FilterServer.start(Map.of("rules", file.toString()), 0)) {
            server.client().get("/").then().statusCode(200);
            awaitNothingInFlight(server, 1);
            server.client().get("/").then().statusCode(429).header("Retry-After", "1")
                    .body("error.context.policy", org.hamcrest.Matchers.equalTo("queue"));    // would wait 500 ms
            awaitNothingInFlight(server, 1);

            // only the shadow queue would delay it (1 s): it runs at once, holding the only lease
            CompletableFuture<HttpResponse<String>> held = HttpClient.newHttpClient().sendAsync(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + server.port() + "/app/async")).build(),
                    HttpResponse.BodyHandlers.ofString());
            jakarta.servlet.AsyncContext async = server.held.poll(10, TimeUnit.SECONDS);
            assertThat(async).as("passed to its servlet at once").isNotNull();
            assertThat(server.filter.frontDoor().inspect("in-flight", "global", null).remaining())
                    .as("it holds its lease").isZero();
            server.client().get("/x").then().statusCode(429)
                    .body("error.context.policy", org.hamcrest.Matchers.equalTo("in-flight"));
            async.getResponse().getWriter().write("done");
            async.complete();
            assertThat(held.get(10, TimeUnit.SECONDS).body()).isEqualTo("done");
            awaitNothingInFlight(server, 1);
        } finally {
            java.nio.file.Files.deleteIfExists(file);
        }
    }

    /**
     * Waits (bounded) until the global lease is free: the filter releases it when the response is complete, which with
     * a content length may be just after the client has read the response.
     */
    private static void awaitNothingInFlight(FilterServer server) {
        awaitNothingInFlight(server, 1);
    }

    /** ... of a rule {@code in-flight} of {@code limit} concurrent requests. */
    private static void awaitNothingInFlight(FilterServer server, long limit) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (server.filter.frontDoor().inspect("in-flight", "global", null).remaining() != limit) {
            assertThat(System.nanoTime()).as("the lease was released").isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    private static void awaitAdmitted(FilterServer server) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (server.client().get("/").statusCode() != 200) {
            assertThat(System.nanoTime()).as("the lease was released when the queued request completed").isLessThan(deadline);
            server.clock.advance(Duration.ofMillis(200));
        }
    }

    /** Waits (bounded) for an event on the server's threads: {@code n} tasks scheduled. */
    private static void awaitPending(FilterServer server, int n) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (server.scheduler.pending() < n) {
            assertThat(System.nanoTime()).as("request queued").isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    /** Waits (bounded) until {@code n} responses have arrived: they come from other threads, not from moving time. */
    private static void awaitDone(List<CompletableFuture<HttpResponse<String>>> responses, int n) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (responses.stream().filter(CompletableFuture::isDone).count() < n) {
            assertThat(System.nanoTime()).as("%d responses arrived", n).isLessThan(deadline);
            Thread.onSpinWait();
        }
        assertThat(responses.stream().filter(CompletableFuture::isDone).count()).isEqualTo(n);
    }

    private static List<Integer> statuses(List<CompletableFuture<HttpResponse<String>>> responses) {
        return responses.stream().map(f -> f.isDone() ? f.join().statusCode() : 0).toList();
    }

    private static long count(List<CompletableFuture<HttpResponse<String>>> responses, int status) {
        return statuses(responses).stream().filter(s -> s == status).count();
    }

    /**
     * Waits (bounded) until no request thread is inside the filter: one whose response the client has read may still be
     * on its way out (the response is sent as its last byte is written), but one waiting for its queued request's turn
     * would stay, since the manual clock does not move while this waits.
     */
    private static void awaitNoThreadInsideTheFilter() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        List<String> inside;
        while (!(inside = threadsInsideTheFilter()).isEmpty()) {
            assertThat(System.nanoTime()).as("no request thread waits while queued: %s", inside).isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    private static List<String> threadsInsideTheFilter() {
        List<String> inside = new ArrayList<>();
        Thread.getAllStackTraces().forEach((thread, stack) -> {
            if (Arrays.stream(stack).anyMatch(f -> f.getClassName().startsWith(RateLimitFilter.class.getName()))) {
                inside.add(thread.getName());
            }
        });
        return inside;
    }
}
