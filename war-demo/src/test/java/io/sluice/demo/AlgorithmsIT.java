package io.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.matchesPattern;

import io.restassured.response.Response;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One endpoint per algorithm, {@code /api/algorithms/NAME}, each with the policy docs/demo.md's table lists. Each test
 * sends a burst from a fresh client and checks where the policy starts denying; a burst that a window boundary or a
 * refill could have split is repeated from another client (see {@link Burst}).
 */
class AlgorithmsIT {

    @RegisterExtension
    static final RunningDemo demo = RunningDemo.at("/");

    private static Burst burst(String algorithm, int count, java.util.function.Predicate<Burst> undisturbed) {
        return demo.burst("/api/algorithms/" + algorithm, count, undisturbed);
    }

    @Test
    void fixedWindowPassesFivePerTenSecondWindow() {
        Burst burst = burst("fixed-window", 6, b -> b.withinOneWindow(Duration.ofSeconds(10)));

        assertThat(burst.statuses()).containsExactly(200, 200, 200, 200, 200, 429);
        burst.responses().get(0).then().body(equalTo("fixed-window: allowed\n"))
                .header("RateLimit-Policy", "\"fixed-window\";q=5;w=10");
    }

    @Test
    void slidingWindowPassesFivePerTenSeconds() {
        Burst burst = burst("sliding-window", 6, b -> b.withinOneWindow(Duration.ofSeconds(10)));

        assertThat(burst.statuses()).containsExactly(200, 200, 200, 200, 200, 429);
        burst.last().then().header("RateLimit-Policy", "\"sliding-window\";q=5;w=10");
    }

    @Test
    void slidingLogWantsOneSecondBetweenRequests() {
        Burst burst = burst("sliding-log", 3, b -> b.shorterThan(Duration.ofSeconds(1)));

        assertThat(burst.statuses()).containsExactly(200, 429, 429);
        for (int denied = 1; denied <= 2; denied++) {   // the store's denial, then the engine's memory of it: one answer
            burst.responses().get(denied).then().header("Retry-After", "1")
                    .header("RateLimit-Policy", "\"sliding-log\";q=5;w=10")
                    .header("RateLimit", "\"sliding-log\";r=0;t=1")   // 4 of 5 left in the 10 s, but none this second
                    .header("X-RateLimit-Remaining", "0");
        }
    }

    @Test
    void tokenBucketPassesABurstOfFiveThenOneEvery500Ms() {
        assertBurstOfFiveAtTwoPerSecond("token-bucket");
    }

    @Test
    void leakyBucketMeterHoldsFiveAndLeaksTwoPerSecond() {
        assertBurstOfFiveAtTwoPerSecond("leaky-bucket");
    }

    @Test
    void gcraPassesABurstOfFiveThenOneEvery500Ms() {
        assertBurstOfFiveAtTwoPerSecond("gcra");
    }

    private static void assertBurstOfFiveAtTwoPerSecond(String algorithm) {
        Burst burst = burst(algorithm, 6, b -> b.shorterThan(Duration.ofMillis(500)));   // 500 ms refills one

        assertThat(burst.statuses()).containsExactly(200, 200, 200, 200, 200, 429);
        assertThat(burst.responses()).extracting(r -> r.header("X-RateLimit-Remaining"))
                .containsExactly("4", "3", "2", "1", "0", "0");
        burst.last().then().header("Retry-After", "1").header("X-RateLimit-Limit", "5")
                .header("RateLimit-Policy", "\"" + algorithm + "\";q=5;w=3")     // the 5 refill in 2.5 s
                .header("RateLimit", "\"" + algorithm + "\";r=0;t=1")
                .body("error.context.policy", equalTo(algorithm));
    }

    @Test
    void warmUpStartsColdWithOneRequestThenWaits() {
        // 5/1s once warm, but a cold limiter spaces requests at 3 x 200 ms (cold factor 3) and ramps up over 10 s
        Burst burst = burst("warm-up", 2, b -> b.shorterThan(Duration.ofMillis(600)));

        assertThat(burst.statuses()).containsExactly(200, 429);
        burst.last().then().header("Retry-After", "1").header("RateLimit-Policy", "\"warm-up\";q=5;w=1");
    }

    @Test
    void concurrencyLetsTwoRequestsInFlightAndFreesTheirPlacesWhenTheyAnswer() throws Exception {
        String client = RunningDemo.freshClient();
        List<Response> responses = inParallel(3, () -> demo.from(client).get("/api/algorithms/concurrency"));

        assertThat(responses).extracting(Response::statusCode).containsExactlyInAnyOrder(200, 200, 429);
        Response denied = responses.stream().filter(r -> r.statusCode() == 429).findFirst().orElseThrow();
        denied.then().header("RateLimit-Policy", matchesPattern("\"concurrency\";q=2;.*qu=\"concurrent-requests\".*"))
                .header("Retry-After", matchesPattern("[12]"))   // requests take 1 s: not the lease's 60 s
                .body("error.context.policy", equalTo("concurrency"));
        demo.from(client).get("/api/algorithms/concurrency").then().statusCode(200)
                .body(equalTo("concurrency: allowed\n"));
    }

    /** Sends {@code count} requests at once (each takes the endpoint's 1 s, so all of them overlap). */
    private static List<Response> inParallel(int count, java.util.function.Supplier<Response> request)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(count);
        try {
            CountDownLatch ready = new CountDownLatch(count);
            List<CompletableFuture<Response>> futures = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                futures.add(CompletableFuture.supplyAsync(() -> {
                    ready.countDown();
                    awaitQuietly(ready);
                    return request.get();
                }, pool));
            }
            List<Response> responses = new ArrayList<>();
            for (CompletableFuture<Response> f : futures) {
                responses.add(f.get());
            }
            return responses;
        } finally {
            pool.shutdownNow();
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Test
    void anUnknownAlgorithmIs404AndNotLimited() {
        demo.from(RunningDemo.freshClient()).get("/api/algorithms/round-robin").then().statusCode(404)
                .header("RateLimit", org.hamcrest.Matchers.nullValue());
    }
}
