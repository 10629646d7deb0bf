package io.sluice.filter;

import static io.sluice.filter.HttpLoad.get;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.testing.Await;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * Coalesced calls ({@link FaultMatrixIT}): the filter on Redis with its defaults, coalescing on, {@code 5/1h} per
 * {@code X-Client}; the load sends from {@value #THREADS} threads at once, each request with a fresh key (requests that
 * a failed batch carried are answered by the rule's failure mode, allow). Exact means: {@value #BURST} requests of a
 * fresh client sent at once, which wait for the calls in flight and go out together, are admitted exactly 5 times. And
 * calls carry several requests: {@value #TOGETHER} requests of fresh clients sent at once cost Redis fewer script
 * calls than requests, before the fault and after.
 */
final class CoalescedOnRedis implements Capability {

    private static final int THREADS = 8;
    private static final int BURST = 16;
    private static final int TOGETHER = 64;

    private final FaultyRedis redis;
    private final FilterServer server;

    CoalescedOnRedis(FaultyRedis redis) throws Exception {
        this.redis = redis;
        server = FilterServer.startOnSystemClock(Map.of("limit", "5/1h", "key", "header:X-Client",
                "store", redis.url()));
    }

    /** @return the statuses of {@code n} requests sent at once, the i-th as client {@code client.apply(i)} */
    private List<Integer> atOnce(int n, IntFunction<String> client) {
        List<CompletableFuture<HttpResponse<Void>>> answers = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            answers.add(HttpLoad.HTTP.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + server.port() + "/app/")).header("X-Client", client.apply(i)).timeout(Duration.ofSeconds(20))
                    .build(), HttpResponse.BodyHandlers.discarding()));
        }
        return answers.stream().map(a -> a.join().statusCode()).toList();
    }

    /** @return how many of {@value #BURST} requests of {@code client}, sent at once, were admitted */
    private long concurrentlyAllowed(String client) {
        List<Integer> statuses = atOnce(BURST, i -> client);
        assertThat(statuses).as("answers to %s", client).allMatch(s -> s == 200 || s == 429);
        return statuses.stream().filter(s -> s == 200).count();
    }

    /** Fewer script calls than requests for requests sent at once; with no other traffic. */
    private long assertCoalesced() {
        long before = redis.scriptCalls();
        assertThat(atOnce(TOGETHER, i -> UUID.randomUUID().toString())).as("fresh clients").containsOnly(200);
        long calls = redis.scriptCalls() - before;
        assertThat(calls).as("script calls for %d requests sent at once", TOGETHER).isLessThan(TOGETHER);
        return calls;
    }

    @Override
    public void arrange() {
        assertThat(concurrentlyAllowed("arranged")).as("5 of %d sent at once", BURST).isEqualTo(5);
        assertCoalesced();
    }

    @Override
    public HttpLoad load() {
        return new HttpLoad(THREADS, () -> get(server, "/", UUID.randomUUID().toString()));
    }

    @Override
    public void awaitRecovered(Fault fault) {
        AtomicLong attempt = new AtomicLong();
        Await.until("5 of " + BURST + " sent at once by a fresh client", Duration.ofSeconds(10),
                () -> concurrentlyAllowed("recovered-" + attempt.incrementAndGet()) == 5);
    }

    @Override
    public Held verify(Fault fault, HttpLoad load, long healStartMillis) {
        assertThat(load.statuses.keySet()).as("fresh clients under an allow rule: every request admitted")
                .containsOnly(200);
        long calls = assertCoalesced();
        return new Held(0, "after recovery " + TOGETHER + " requests at once in " + calls + " script calls");
    }

    @Override
    public void close() throws Exception {
        server.close();
    }
}
