package io.sluice.filter;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Sustained load on a {@link FilterServer} while a test breaks its Redis ({@link FaultMatrixIT},
 * {@link RedisOutageIT}): threads sending requests until closed, counting statuses and timing answers.
 */
final class HttpLoad implements AutoCloseable {

    /** An answer this slow (ms) waited for a Redis call that timed out: the budget is 50 ms. */
    private static final long WAITED_FOR_STORE_MILLIS = 45;

    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    /** One answer: its status (-1: no answer) and how long it took. */
    record Answer(int status, long millis) {}

    /** A {@code GET} of {@code path} in the application with {@code X-Client: client}, timed. */
    static Answer get(FilterServer server, String path, String client) {
        long start = System.nanoTime();
        int status;
        try {
            status = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/app" + path))
                    .header("X-Client", client).timeout(Duration.ofSeconds(20)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (Exception e) {
            status = -1;
        }
        return new Answer(status, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    }

    final Map<Integer, AtomicLong> statuses = new ConcurrentHashMap<>();
    final AtomicLong sent = new AtomicLong();
    final AtomicLong slowestMillis = new AtomicLong();
    /**
     * Answers that waited about a Redis call's budget (50 ms) or more: while Redis hangs, the calls that open the
     * circuit breaker and each probe after a cool-down; the fallback's own answers take a few milliseconds.
     */
    final AtomicLong waitedForStore = new AtomicLong();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final ExecutorService threads;

    /** Each request with a fresh key: only Redis decides it. */
    HttpLoad(FilterServer server, String path, int threadCount) {
        this(server, path, threadCount, () -> UUID.randomUUID().toString());
    }

    HttpLoad(FilterServer server, String path, int threadCount, Supplier<String> keys) {
        this(threadCount, () -> get(server, path, keys.get()));
    }

    /** @param request sends one request and says how it was answered; called by each thread until closed */
    HttpLoad(int threadCount, Supplier<Answer> request) {
        threads = Executors.newFixedThreadPool(threadCount);
        for (int i = 0; i < threadCount; i++) {
            threads.submit(() -> {
                while (running.get()) {
                    Answer a = request.get();
                    statuses.computeIfAbsent(a.status(), s -> new AtomicLong()).incrementAndGet();
                    slowestMillis.accumulateAndGet(a.millis(), Math::max);
                    if (a.millis() >= WAITED_FOR_STORE_MILLIS) {
                        waitedForStore.incrementAndGet();
                    }
                    sent.incrementAndGet();
                }
                return null;
            });
        }
    }

    /**
     * Redis decides again, exactly: a burst of {@code limit + 3} requests on a fresh key ({@code client-0},
     * {@code client-1}...) of a {@code limit}/1h rule keyed by {@code X-Client} gets exactly {@code limit}. Polls
     * (bounded) while the breaker still cools down or probes, each time with a new key.
     */
    static void awaitExactLimits(FilterServer server, String path, String client, int limit) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        for (int attempt = 0; ; attempt++) {
            int allowed = allowed(server, path, client + "-" + attempt, limit + 3);
            if (allowed == limit) {
                return;
            }
            assertThat(System.nanoTime()).as("exact limits again (last burst: %d of %d allowed)", allowed, limit + 3)
                    .isLessThan(deadline);
        }
    }

    /** @return how many of {@code requests} requests to {@code path} as {@code client}, one by one, got a 200 */
    static int allowed(FilterServer server, String path, String client, int requests) {
        int allowed = 0;
        for (int i = 0; i < requests; i++) {
            int status = get(server, path, client).status();
            assertThat(status).as("answer to %s", client).isIn(200, 429, 503);
            allowed += status == 200 ? 1 : 0;
        }
        return allowed;
    }

    /** Waits (bounded) until {@code n} more requests have been answered. */
    void awaitMore(long n) {
        awaitMore(sent, n, "load keeps flowing");
    }

    /**
     * Waits (bounded) until {@code n} more answers have waited for a Redis call's budget: with Redis hung, the calls
     * that open the circuit breaker, then one probe per cool-down.
     */
    void awaitStoreWaits(long n) {
        awaitMore(waitedForStore, n, "answers that waited for the hung store");
    }

    private static void awaitMore(AtomicLong counter, long n, String what) {
        long target = counter.get() + n;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (counter.get() < target) {
            assertThat(System.nanoTime()).as(what).isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    @Override
    public void close() throws InterruptedException {
        running.set(false);
        threads.shutdown();
        assertThat(threads.awaitTermination(60, TimeUnit.SECONDS)).as("load threads ended").isTrue();
    }
}
