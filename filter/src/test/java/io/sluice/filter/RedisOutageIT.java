package io.sluice.filter;

import static io.sluice.filter.HttpLoad.awaitExactLimits;
import static io.sluice.filter.HttpLoad.get;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.store.CircuitBreaker;
import io.sluice.core.testing.LogCapture;
import io.sluice.core.testing.RedisProcess;
import io.sluice.filter.HttpLoad.Answer;
import jakarta.servlet.AsyncContext;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/**
 * Losing Redis in the ways the cells of {@link FaultMatrixIT} do not measure: a real redis-server hung ({@code SIGSTOP}),
 * restarted empty at once with a pool of connections to its old self, restarted while concurrency leases are held,
 * refusing writes now and then for lack of memory, asking for a password the configuration lacks, and too slow for more
 * requests than the pool has connections. The filter runs on the system
 * clock, so the circuit breaker cools down and probes by itself as in production. Every answer is timed: the budget is
 * 50 ms per Redis call; the bounds below are generous for a loaded two-core machine.
 */
class RedisOutageIT {

    /** Slowest answer accepted while Redis misbehaves: many times the 50 ms budget, far below a hang. */
    private static final long SLOWEST_MILLIS = 3_000;

    private static Map<String, String> limit(RedisProcess redis, String limit, String onFailure) {
        return Map.of("limit", limit, "key", "header:X-Client", "store", redis.url(), "on-store-failure", onFailure);
    }

    // 1. Hung, not dead

    @Test
    void aHungRedisCostsEachRequestAboutItsBudgetAndLimitsApplyAgainOnceItResumes() throws Exception {
        try (RedisProcess redis = RedisProcess.start();
                FilterServer server = FilterServer.startOnSystemClock(limit(redis, "5/1h", "allow"))) {
            HttpLoad load = new HttpLoad(server, "/", 6);
            try (load) {
                load.awaitMore(200);
                redis.pause();
                try {
                    load.awaitStoreWaits(6);     // the 3 failures that open the breaker, then 3 cool-downs' probes
                } finally {
                    redis.resume();
                }
                load.awaitMore(200);
            }
            assertThat(load.statuses.keySet()).as("statuses seen: %s", load.statuses).containsOnly(200);
            assertThat(load.slowestMillis.get()).as("slowest answer (ms)").isLessThan(SLOWEST_MILLIS);
            awaitExactLimits(server, "/", "probe", 5);
        }
    }

    @Test
    void leasesTakenByCallsThatTimedOutWhileRedisHungDoNotStayTaken() throws Exception {
        try (RedisProcess redis = RedisProcess.start();
                FilterServer server = FilterServer.startOnSystemClock(Map.of("limit", "2 concurrent",
                        "name", "per-client", "key", "header:X-Client", "store", redis.url()))) {
            HttpLoad load = new HttpLoad(server, "/", 6, () -> "leased");
            try (load) {
                load.awaitMore(100);
                for (int round = 0; round < 2; round++) {      // calls that time out, some of them run later
                    redis.pause();
                    try {
                        load.awaitStoreWaits(4);     // the failures that open the breaker, and one probe
                    } finally {
                        redis.resume();
                    }
                    load.awaitMore(50);
                }
            }
            assertThat(load.slowestMillis.get()).isLessThan(SLOWEST_MILLIS);
            // requests release what the calls that timed out took; then both units are free
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            long remaining = -1;
            while (true) {
                get(server, "/", "leased");
                try {
                    remaining = server.door().inspect("per-client", "leased", null).remaining();
                } catch (RuntimeException notYet) {
                    remaining = -1;
                }
                if (remaining == 2) {
                    break;
                }
                assertThat(System.nanoTime()).as("both units free again (remaining %d)", remaining).isLessThan(deadline);
            }
        }
    }

    // 2. Killed and restarted empty on the same port

    @Test
    void aRedisRestartedEmptyDecidesAgainAtOnceWithoutRefusingARequest() throws Exception {
        try (RedisProcess redis = RedisProcess.start();
                FilterServer server = FilterServer.startOnSystemClock(limit(redis, "5/1h", "deny"))) {
            try (HttpLoad load = new HttpLoad(server, "/", 8)) {
                load.awaitMore(300);            // several pooled connections, as under load
            }
            for (int i = 0; i < 3; i++) {
                assertThat(get(server, "/", "counted").status()).isEqualTo(200);
            }

            redis.restart();                    // killed and started again at once: no script, no counts

            Map<Integer, Integer> statuses = new HashMap<>();
            long slowest = 0;
            for (int i = 0; i < 20; i++) {
                Answer a = get(server, "/", "after-" + i);
                statuses.merge(a.status(), 1, Integer::sum);
                slowest = Math.max(slowest, a.millis());
            }
            assertThat(statuses.keySet()).as("Redis answers: with on-store-failure=deny a fallback would be a 503: %s",
                    statuses).containsOnly(200);
            int allowed = 0;
            for (int i = 0; i < 8; i++) {
                allowed += get(server, "/", "counted").status() == 200 ? 1 : 0;
            }
            assertThat(allowed).as("the count restarted with the empty Redis: 5 of 8, not 2").isEqualTo(5);
        }
    }

    // 3. Restarted while leases are held

    /** A slow request holding a lease: its response to come, and the servlet's async context that ends it. */
    private record Held(CompletableFuture<HttpResponse<Void>> response, AsyncContext context) {
        void release() {
            context.complete();
        }

        int status() throws Exception {
            return response.get(10, TimeUnit.SECONDS).statusCode();
        }
    }

    /** A server whose one rule allows 2 concurrent requests per {@code X-Client}, on {@code redis}. */
    private static FilterServer leasing(RedisProcess redis) throws Exception {
        return FilterServer.startOnSystemClock(Map.of("limit", "2 concurrent", "name", "per-client",
                "key", "header:X-Client", "store", redis.url()));
    }

    /** Sends a slow request and waits until it reaches the servlet (its lease taken). */
    private static Held hold(FilterServer server) throws InterruptedException {
        CompletableFuture<HttpResponse<Void>> response = HttpLoad.HTTP.sendAsync(HttpRequest.newBuilder(URI.create(
                "http://127.0.0.1:" + server.port() + "/app/async")).header("X-Client", "leased")
                .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.discarding());
        AsyncContext held = server.held.poll(10, TimeUnit.SECONDS);
        assertThat(held).as("the slow request reached the servlet").isNotNull();
        return new Held(response, held);
    }

    /** In flight under the lease rule now, as Redis counts them (polled while releases complete after the response). */
    private static void awaitInFlight(FilterServer server, long inFlight) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        long remaining = -1;
        while (true) {
            try {
                remaining = server.door().inspect("per-client", "leased", null).remaining();
            } catch (RuntimeException storeNotAnswering) {
                remaining = -1;
            }
            if (remaining == 2 - inFlight) {
                return;
            }
            assertThat(System.nanoTime()).as("%d in flight (remaining %d)", inFlight, remaining).isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    @Test
    void leasesHeldAcrossARestartNeitherGoNegativeNorStayTaken() throws Exception {
        try (RedisProcess redis = RedisProcess.start();
                FilterServer server = leasing(redis)) {
            Held a = hold(server);
            Held b = hold(server);
            assertThat(get(server, "/", "leased").status()).isEqualTo(429);

            redis.restart();                    // the two leases are gone with the data
            awaitInFlight(server, 0);

            Held c = hold(server);
            Held d = hold(server);
            assertThat(get(server, "/", "leased").status()).as("two in flight as the new Redis counts").isEqualTo(429);

            a.release();                        // released in a Redis that never had them: nothing changes
            b.release();
            assertThat(a.status()).isEqualTo(200);
            assertThat(b.status()).isEqualTo(200);
            awaitInFlight(server, 2);
            assertThat(get(server, "/", "leased").status()).as("C and D still hold both units").isEqualTo(429);

            // C completes while Redis is down: its release is kept and made once Redis is back
            redis.kill();
            c.release();
            assertThat(c.status()).isEqualTo(200);
            redis.restart();
            d.release();
            assertThat(d.status()).isEqualTo(200);
            awaitInFlight(server, 0);

            Held e = hold(server);
            Held f = hold(server);
            assertThat(get(server, "/", "leased").status()).as("exactly two units, no more").isEqualTo(429);
            e.release();
            f.release();
            e.status();
            f.status();
            awaitInFlight(server, 0);
        }
    }

    @Test
    void leasesWhoseReleaseFailedWhileRedisHungAreReleasedOnceItResumes() throws Exception {
        try (RedisProcess redis = RedisProcess.start();
                FilterServer server = leasing(redis)) {
            Held a = hold(server);
            Held b = hold(server);
            redis.pause();                      // the leases stay in Redis; their releases cannot reach it
            try {
                a.release();
                b.release();
                assertThat(a.status()).isEqualTo(200);
                assertThat(b.status()).isEqualTo(200);
            } finally {
                redis.resume();
            }
            // the next store call releases them first: both units are free again, not after the lease timeout
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (get(server, "/", "leased").status() != 200) {
                assertThat(System.nanoTime()).as("capacity came back").isLessThan(deadline);
            }
            awaitInFlight(server, 0);
        }
    }

    // 4. Out of memory

    @Test
    void writesRefusedNowAndThenForLackOfMemoryAreLoggedWithTheirCause() throws Exception {
        try (RedisProcess redis = RedisProcess.start("--maxmemory-policy", "noeviction");
                FilterServer server = FilterServer.start(limit(redis, "5/1h", "deny"));
                RedisClient admin = RedisClient.create(redis.url());
                LogCapture log = new LogCapture("io.sluice")) {
            // Redis at its memory limit, its keys expiring: some writes are refused, the next ones pass again. Too few
            // failures in a row to open the circuit, yet each is a 503 for a rule that denies meanwhile
            for (int i = 0; i < 3; i++) {
                admin.configSet("maxmemory", "1");
                assertThat(get(server, "/", "refused-" + i).status()).isEqualTo(503);
                admin.configSet("maxmemory", "0");
                assertThat(get(server, "/", "written-" + i).status()).isEqualTo(200);
            }
            assertThat(server.door().engine().storeCircuit()).isEqualTo(CircuitBreaker.State.CLOSED);
            assertThat(log.messages()).as("the log says why the first was refused: %s", log.messages())
                    .anyMatch(m -> m.contains("WARNING") && m.contains("OOM"));

            server.clock.advance(Duration.ofSeconds(61));
            admin.configSet("maxmemory", "1");
            assertThat(get(server, "/", "refused-later").status()).isEqualTo(503);
            assertThat(log.messages()).as("a minute later, how many and why: %s", log.messages())
                    .anyMatch(m -> m.contains("3 calls failed") && m.contains("OOM"));
        }
    }

    // 5. A password the configuration lacks

    @Test
    void aRedisAskingForAPasswordTheUrlLacksFallsBackAndSaysWhy() throws Exception {
        try (RedisProcess redis = RedisProcess.start("--requirepass", "s3cret");
                LogCapture log = new LogCapture("io.sluice")) {
            for (String url : List.of(redis.url(), "redis://:wrong@127.0.0.1:" + redis.port())) {
                try (FilterServer server = FilterServer.startOnSystemClock(Map.of("limit", "5/1h",
                        "key", "header:X-Client", "store", url, "on-store-failure", "deny"))) {
                    Map<Integer, Integer> statuses = new HashMap<>();
                    long slowest = 0;
                    for (int i = 0; i < 10; i++) {
                        Answer a = get(server, "/", "c" + i);
                        statuses.merge(a.status(), 1, Integer::sum);
                        slowest = Math.max(slowest, a.millis());
                    }
                    assertThat(statuses).isEqualTo(Map.of(503, 10));
                    assertThat(slowest).isLessThan(SLOWEST_MILLIS);
                }
            }
            assertThat(log.messages()).anyMatch(m -> m.contains("NOAUTH"));
            assertThat(log.messages()).anyMatch(m -> m.contains("WRONGPASS"));
        }
    }

    // 6. More requests than pooled connections while Redis is slow

    @Test
    void moreRequestsThanPooledConnectionsWhileRedisIsBusyWaitNoLongerThanTheBudget() throws Exception {
        try (RedisProcess redis = RedisProcess.start();
                FilterServer server = FilterServer.startOnSystemClock(limit(redis, "5/1h", "allow"));
                redis.clients.jedis.Jedis admin = new redis.clients.jedis.Jedis("127.0.0.1", redis.port(), 30_000)) {
            assertThat(get(server, "/", "warm").status()).isEqualTo(200);
            int threads = 40;                   // the pool has 16 connections
            ExecutorService pool = Executors.newFixedThreadPool(threads + 1);
            try {
                // a script that keeps Redis busy for 1.5 s: below the 5 s busy threshold, nobody is answered meanwhile
                CompletableFuture<Object> busy = CompletableFuture.supplyAsync(() -> admin.eval(
                        "local s = redis.call('TIME') local t repeat t = redis.call('TIME')"
                                + " until (t[1] - s[1]) * 1000000 + (t[2] - s[2]) > 1500000 return 1"), pool);
                awaitUnresponsive(redis);
                java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(threads);
                List<CompletableFuture<List<Answer>>> clients = new java.util.ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    clients.add(CompletableFuture.supplyAsync(() -> {
                        try {
                            start.await(10, TimeUnit.SECONDS);
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                        List<Answer> answers = new java.util.ArrayList<>();
                        for (int i = 0; i < 5; i++) {
                            answers.add(get(server, "/", UUID.randomUUID().toString()));
                        }
                        return answers;
                    }, pool));
                }
                Map<Integer, Integer> statuses = new HashMap<>();
                long slowest = 0;
                for (CompletableFuture<List<Answer>> c : clients) {
                    for (Answer a : c.get(60, TimeUnit.SECONDS)) {
                        statuses.merge(a.status(), 1, Integer::sum);
                        slowest = Math.max(slowest, a.millis());
                    }
                }
                busy.get(30, TimeUnit.SECONDS);
                assertThat(statuses).as("statuses").containsOnlyKeys(200);
                assertThat(slowest).as("slowest answer (ms)").isLessThan(SLOWEST_MILLIS);
            } finally {
                pool.shutdownNow();
            }
            awaitExactLimits(server, "/", "probe", 5);
        }
    }

    /** Waits (bounded) until Redis no longer answers a PING within 100 ms. */
    private static void awaitUnresponsive(RedisProcess redis) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try (java.net.Socket s = new java.net.Socket("127.0.0.1", redis.port())) {
                s.setSoTimeout(100);
                s.getOutputStream().write("PING\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                s.getInputStream().read();
            } catch (java.net.SocketTimeoutException busy) {
                return;
            }
            assertThat(System.nanoTime()).as("Redis got busy").isLessThan(deadline);
        }
    }
}
