package io.sluice.filter;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.servlet.AsyncContext;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Concurrency leases are released when the response completes: synchronously, on failure, and for async requests. */
class LeasesIT {

    private final HttpClient http = HttpClient.newHttpClient();

    private CompletableFuture<HttpResponse<String>> sendAsync(FilterServer server, String path) {
        return http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/app" + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /**
     * The lease is released in an AsyncListener, which Jetty calls after the response is written: the client may see
     * the response first. Waits for the next request to be admitted, bounded (this is waiting for an event on another
     * thread, not moving time).
     */
    private static void eventuallyAdmitted(FilterServer server) {
        Instant deadline = Instant.now().plusSeconds(5);
        while (server.client().get("/").statusCode() != 200) {
            assertThat(Instant.now()).as("a lease was never released").isBefore(deadline);
            Thread.onSpinWait();
        }
    }

    @Test
    void synchronousRequestsReleaseTheirLeaseWhenTheyComplete() throws Exception {
        try (FilterServer server = FilterServer.start(Map.of("limit", "1 concurrent"))) {
            for (int i = 0; i < 5; i++) {
                server.client().get("/").then().statusCode(200)
                        .header("RateLimit-Policy", "\"per-ip\";q=1;qu=\"concurrent-requests\"")
                        .header("RateLimit", "\"per-ip\";r=0").header("X-RateLimit-Reset", (String) null);
                // released when the response is complete: with a content length, maybe just after the client read it
                Instant deadline = Instant.now().plusSeconds(5);
                while (server.filter.frontDoor().inspect("per-ip", "127.0.0.1", null).remaining() != 1) {
                    assertThat(Instant.now()).as("the lease was released").isBefore(deadline);
                    Thread.onSpinWait();
                }
            }
        }
    }

    @Test
    void aFailingApplicationStillReleasesItsLease() throws Exception {
        try (FilterServer server = FilterServer.start(Map.of("limit", "1 concurrent"))) {
            server.client().get("/fail").then().statusCode(500);
            server.client().get("/").then().statusCode(200);
        }
    }

    @Test
    void anAsyncRequestHoldsItsLeaseUntilItCompletes() throws Exception {
        try (FilterServer server = FilterServer.start(Map.of("limit", "1 concurrent"))) {
            CompletableFuture<HttpResponse<String>> slow = sendAsync(server, "/async");
            AsyncContext held = server.held.poll(10, TimeUnit.SECONDS);
            assertThat(held).as("the async request reached the servlet").isNotNull();

            server.client().get("/").then().statusCode(429)
                    .header("RateLimit", "\"per-ip\";r=0");      // draft -11: a concurrency limit has no window

            held.getResponse().getWriter().write("done");
            held.complete();
            assertThat(slow.get(10, TimeUnit.SECONDS).body()).isEqualTo("done");
            eventuallyAdmitted(server);
        }
    }

    @Test
    void anAsyncRequestThatErrorsReleasesItsLease() throws Exception {
        try (FilterServer server = FilterServer.start(Map.of("limit", "1 concurrent"))) {
            CompletableFuture<HttpResponse<String>> slow = sendAsync(server, "/async");
            AsyncContext held = server.held.poll(10, TimeUnit.SECONDS);
            assertThat(held).isNotNull();

            held.dispatch("/fail");

            assertThat(slow.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(500);
            eventuallyAdmitted(server);
        }
    }

    @Test
    void aDeniedRequestTakesNoLeaseAndTheInFlightOneStillReleases() throws Exception {
        try (FilterServer server = FilterServer.start(Map.of("limit", "1 concurrent"))) {
            CompletableFuture<HttpResponse<String>> slow = sendAsync(server, "/async");
            AsyncContext held = server.held.poll(10, TimeUnit.SECONDS);
            for (int i = 0; i < 3; i++) {
                server.client().get("/").then().statusCode(429);
            }
            held.complete();
            slow.get(10, TimeUnit.SECONDS);
            eventuallyAdmitted(server);
            server.clock.advance(Duration.ofSeconds(1));
            server.client().get("/").then().statusCode(200);
        }
    }

    @Test
    void aClientThatAbortsReleasesItsLeaseWhenTheCycleEnds() throws Exception {
        try (FilterServer server = FilterServer.start(Map.of("limit", "1 concurrent"))) {
            try (java.net.Socket socket = new java.net.Socket("127.0.0.1", server.port())) {
                socket.getOutputStream().write(("GET /app/async HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                        .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                socket.getOutputStream().flush();
                assertThat(server.held.poll(10, TimeUnit.SECONDS)).as("the request reached the servlet").isNotNull()
                        .satisfies(held -> server.held.add(held));
                server.client().get("/").then().statusCode(429);
            }                                                     // the client goes away mid-request
            AsyncContext held = server.held.poll(10, TimeUnit.SECONDS);
            try {
                held.getResponse().getOutputStream().write(new byte[64 * 1024]);   // the application answers anyway
                held.getResponse().flushBuffer();
            } catch (java.io.IOException clientGone) {
                // the container may already know the client is gone
            }
            held.complete();
            eventuallyAdmitted(server);
        }
    }

    @Test
    void aLeaseThatIsNeverReleasedExpires() throws Exception {
        try (FilterServer server = FilterServer.start(Map.of("limit", "1 concurrent lease 30s"))) {
            CompletableFuture<HttpResponse<String>> slow = sendAsync(server, "/async");
            AsyncContext held = server.held.poll(10, TimeUnit.SECONDS);
            assertThat(held).isNotNull();
            server.client().get("/").then().statusCode(429);
            server.clock.advance(Duration.ofSeconds(30));         // as if the node holding the lease had died
            server.client().get("/").then().statusCode(200);
            held.complete();
            slow.get(10, TimeUnit.SECONDS);
        }
    }
}
