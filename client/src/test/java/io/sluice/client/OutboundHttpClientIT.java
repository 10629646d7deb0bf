package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.sluice.core.RateLimitExceededException;
import io.sluice.core.testing.Await;
import io.sluice.core.testing.ManualTimeSource;
import io.sluice.core.testing.RedisProcess;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The {@code java.net.http.HttpClient} wrapper over real sockets: the same fleet, remote and rules as the filter's. */
class OutboundHttpClientIT {

    private static RedisProcess redis;
    private TwoNodes nodes;
    private RemoteApi api;
    private SluiceHttpClient a;
    private SluiceHttpClient b;

    @BeforeAll
    static void startRedis() throws Exception {
        redis = RedisProcess.start();
    }

    @AfterAll
    static void stopRedis() throws Exception {
        redis.close();
    }

    private void start(String remoteLimit, OutboundLimit limit) throws Exception {
        api = new RemoteApi(remoteLimit);
        nodes = new TwoNodes(redis.url());
        a = SluiceHttpClient.wrap(HttpClient.newHttpClient(), nodes.a, limit);
        b = SluiceHttpClient.wrap(HttpClient.newHttpClient(), nodes.b, limit);
    }

    @AfterEach
    void stop() throws Exception {
        if (nodes != null) {
            nodes.close();
        }
        if (api != null) {
            api.close();
        }
    }

    private HttpRequest get(String path) {
        return HttpRequest.newBuilder(api.uri(path)).build();
    }

    private int send(SluiceHttpClient client, HttpRequest request) throws Exception {
        return client.send(request, HttpResponse.BodyHandlers.ofString()).statusCode();
    }

    @Test
    void twoNodesTogetherStayWithinTheRemotesLimit() throws Exception {
        start("6/1h", OutboundLimit.builder("partner", "6/1h").maxWait(Duration.ZERO).build());
        int sent = 0;
        int refused = 0;
        for (int i = 0; i < 10; i++) {
            try {
                assertThat(send(i % 2 == 0 ? a : b, get("/api/orders"))).isEqualTo(200);
                sent++;
            } catch (RateLimitExceededException e) {
                refused++;
            }
        }
        assertThat(sent).isEqualTo(6);
        assertThat(refused).isEqualTo(4);
        assertThat(api.admitted.get()).isEqualTo(6);
        assertThat(api.denied()).isZero();
    }

    @Test
    void aRetryAfterPausesBothNodesAndSendAsyncFailsWithTheWait() throws Exception {
        start("100/1h", OutboundLimit.builder("partner", "100/1h").maxWait(Duration.ZERO).build());
        api.script.add(new RemoteApi.Answer(429, Map.of("Retry-After", "90")));
        assertThat(send(a, get("/scripted"))).isEqualTo(429);
        RateLimitExceededException e = catchThrowableOfType(RateLimitExceededException.class,
                () -> send(b, get("/scripted")));
        assertThat(e.retryAfter()).isEqualTo(Duration.ofSeconds(90));
        CompletableFuture<HttpResponse<String>> async = a.sendAsync(get("/scripted"),
                HttpResponse.BodyHandlers.ofString());
        CompletionException failed = catchThrowableOfType(CompletionException.class, async::join);
        assertThat(failed.getCause()).isInstanceOf(RateLimitExceededException.class);
        assertThat(api.scriptedCalls.get()).isEqualTo(1);
        nodes.clock.advance(Duration.ofSeconds(90));
        assertThat(a.sendAsync(get("/scripted"), HttpResponse.BodyHandlers.ofString()).join().statusCode())
                .isEqualTo(200);
    }

    @Test
    void aCallAnswered429IsRetriedOnceThePauseEndsUnlessItIsAPost() throws Exception {
        start("100/1h", OutboundLimit.builder("partner", "100/1h").retries(1, Duration.ofSeconds(30)).build());
        api.script.add(new RemoteApi.Answer(429, Map.of("Retry-After", "3")));
        CompletableFuture<Integer> status = new CompletableFuture<>();
        Thread caller = new Thread(() -> {
            try {
                status.complete(send(a, get("/scripted")));
            } catch (Exception e) {
                status.completeExceptionally(e);
            }
        });
        caller.start();
        nodes.clock.awaitParked(caller, ManualTimeSource.START_MICROS + 3_000_000);
        nodes.clock.advance(Duration.ofSeconds(3));
        assertThat(status.get()).isEqualTo(200);
        assertThat(api.scriptedCalls.get()).isEqualTo(2);

        api.script.add(new RemoteApi.Answer(429, Map.of("Retry-After", "3")));
        HttpRequest post = HttpRequest.newBuilder(api.uri("/scripted"))
                .POST(HttpRequest.BodyPublishers.ofString("order")).build();
        assertThat(send(b, post)).isEqualTo(429);
        assertThat(api.scriptedCalls.get()).isEqualTo(3);
    }

    @Test
    void aPostIsRetriedWhenConfigured() throws Exception {
        start("100/1h", OutboundLimit.builder("partner", "100/1h").retries(1, Duration.ofSeconds(30))
                .retryNonIdempotent(true).build());
        api.script.add(new RemoteApi.Answer(429, Map.of("Retry-After", "1")));
        HttpRequest post = HttpRequest.newBuilder(api.uri("/scripted"))
                .POST(HttpRequest.BodyPublishers.ofString("order")).build();
        CompletableFuture<HttpResponse<String>> status = b.sendAsync(post, HttpResponse.BodyHandlers.ofString());
        Await.until("the retry waits out the pause", Duration.ofSeconds(10),
                () -> nodes.clock.parkedThreads() > 0);
        nodes.clock.advance(Duration.ofSeconds(1));
        assertThat(status.join().statusCode()).isEqualTo(200);
        assertThat(api.scriptedCalls.get()).isEqualTo(2);
    }
}
