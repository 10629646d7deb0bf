package io.sluice.filter;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.testing.Await;
import jakarta.servlet.AsyncContext;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * An adaptive concurrency limit over HTTP: shed requests are answered 429 with the usual headers, and
 * {@code RateLimit-Policy} states the limit that applies now; critical requests may use the reserve; leases are
 * released on every path, and failures shrink the limit.
 */
class AdaptiveConcurrencyIT {

    /** 2 at once, 1 of which only critical requests may use. */
    private static final Map<String, String> ADAPTIVE = Map.of("limit", "2 concurrent adaptive max 4 reserve 50");

    private final HttpClient http = HttpClient.newHttpClient();

    private CompletableFuture<HttpResponse<String>> sendAsync(FilterServer server, String path) {
        return http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/app" + path))
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Waits, bounded, for the leases to be released: a listener may release them just after the client read. */
    private static void eventuallyFree(FilterServer server) {
        Await.until("a lease released", Duration.ofSeconds(5), () -> server.client().get("/").statusCode() == 200);
        // and the lease of that request too, released when its response is complete: maybe just after the client read
        Await.until("every lease released", Duration.ofSeconds(5), () -> {
            var state = server.filter.frontDoor().inspect("per-ip", "127.0.0.1", null);
            return state.remaining() == state.limit();
        });
    }

    @Test
    void shedsOrdinaryRequestsFirstStatingTheLimitThatApplies() throws Exception {
        try (FilterServer server = FilterServer.start(ADAPTIVE)) {
            CompletableFuture<HttpResponse<String>> slow = sendAsync(server, "/async");
            AsyncContext held = server.held.poll(10, TimeUnit.SECONDS);
            assertThat(held).as("the async request reached the servlet").isNotNull();

            server.client().get("/").then().statusCode(429)
                    .header("RateLimit-Policy", "\"per-ip\";q=1;qu=\"concurrent-requests\"")
                    .header("RateLimit", "\"per-ip\";r=0")     // draft -11: no effective window for a concurrency limit
                    .header("Retry-After", org.hamcrest.Matchers.notNullValue());
            server.client().header("X-Test-Critical", "yes").get("/").then().statusCode(200)
                    .header("RateLimit-Policy", "\"per-ip\";q=2;qu=\"concurrent-requests\"")
                    .header("RateLimit", "\"per-ip\";r=0");

            held.getResponse().getWriter().write("done");
            held.complete();
            assertThat(slow.get(10, TimeUnit.SECONDS).body()).isEqualTo("done");
            eventuallyFree(server);
        }
    }

    @Test
    void failuresReleaseTheirLeasesAndShrinkTheLimit() throws Exception {
        try (FilterServer server = FilterServer.start(ADAPTIVE)) {
            CompletableFuture<HttpResponse<String>> erring = sendAsync(server, "/async");
            AsyncContext held = server.held.poll(10, TimeUnit.SECONDS);
            held.dispatch("/fail");
            assertThat(erring.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(500);
            eventuallyFree(server);

            assertThat(sendAsync(server, "/expiring").get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(500);
            eventuallyFree(server);

            for (int i = 0; i < 10; i++) {          // a round of samples with failures (and the two above)
                server.client().get("/fail").then().statusCode(500);
                eventuallyFree(server);
            }
            assertThat(server.filter.frontDoor().engine().adaptiveLimit("per-ip")).isEqualTo(1);
            server.client().header("X-Test-Critical", "yes").get("/").then().statusCode(200)
                    .header("RateLimit-Policy", "\"per-ip\";q=1;qu=\"concurrent-requests\"");
            server.client().get("/").then().statusCode(200);
        }
    }

    @Test
    void aBadValueFailsStartUpNamingItsParameterAndValue() {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                () -> FilterServer.start(Map.of("limit", "2 concurrent adaptive reserve 95")).close())
                .hasStackTraceContaining("reserve").hasStackTraceContaining("95");
    }
}
