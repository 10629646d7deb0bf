package io.sluice.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import jakarta.ws.rs.container.AsyncResponse;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Concurrency leases of the JAX-RS filter are released once, when the response is done, on every path: entity written,
 * dropped or replaced by the application's filters, written by the application's interceptor, mapped and unmapped
 * exceptions, {@code HEAD}, async resources, streamed entities (held while they stream), a client that goes away. Run
 * on each implementation by a subclass. Without {@link WebAppInitializer} unless a test says otherwise: the JAX-RS
 * filters alone release on these paths, before the response is complete, so a request right after is admitted.
 */
abstract class LeaseSuite {

    @TempDir
    Path dir;

    abstract JaxrsServer.Implementation implementation();

    /** The suites' resources, the {@code 1 concurrent} ones of this suite, and the application's filters. */
    JaxrsServer start(boolean initializer) throws Exception {
        return start(new JaxrsServer.Setup(), initializer);
    }

    /** @param initializer whether the context runs {@link WebAppInitializer}, as a container finds it in the jar */
    JaxrsServer start(JaxrsServer.Setup setup, boolean initializer) throws Exception {
        setup.classes.addAll(Set.of(Resources.Reports.class, Resources.FailingReports.class, Resources.Streams.class,
                Resources.AsyncReports.class, Resources.ConflictingReports.class, Resources.ConflictMapper.class,
                Resources.EntityRewriter.class, Resources.OwnWriter.class));
        java.util.function.Consumer<org.eclipse.jetty.ee10.servlet.ServletContextHandler> before = setup.beforeStart;
        setup.beforeStart = context -> {
            for (org.eclipse.jetty.ee10.servlet.ServletHolder h : context.getServletHandler().getServlets()) {
                h.setAsyncSupported(true);                          // AsyncResponse
            }
            if (initializer) {
                context.addServletContainerInitializer(new WebAppInitializer());
            }
            before.accept(context);
        };
        return new JaxrsServer(implementation(), setup);
    }

    /** Three requests in a row, each answered {@code status}: a lease kept would make the second 429. */
    static void threeInARow(JaxrsServer server, Function<RequestSpecification, Response> send, int status) {
        for (int i = 0; i < 3; i++) {
            assertThat(send.apply(server.client()).statusCode()).as("request %d", i + 1).isEqualTo(status);
        }
    }

    @Test
    void aLeaseIsReleasedOnceTheBodyIsWritten() throws Exception {
        try (JaxrsServer server = start(false)) {
            for (int i = 0; i < 5; i++) {
                server.client().get("/api/reports").then().statusCode(200).body(equalTo("report"))
                        .header("RateLimit-Policy", "\"Reports.report\";q=1;qu=\"concurrent-requests\"");
            }
        }
    }

    @Test
    void aLeaseIsReleasedWhenTheResourceThrowsAnUnmappedException() throws Exception {
        try (JaxrsServer server = start(false)) {
            threeInARow(server, c -> c.get("/api/failing-reports"), 500);
        }
    }

    @Test
    void aLeaseIsReleasedWhenAResponseFilterThatRunsLaterDropsTheEntity() throws Exception {
        try (JaxrsServer server = start(false)) {
            threeInARow(server, c -> c.header("X-Drop-Entity", "yes").get("/api/reports"), 200);
        }
    }

    @Test
    void aLeaseIsReleasedWhenAResponseFilterThatRunsLaterReplacesTheEntity() throws Exception {
        try (JaxrsServer server = start(false)) {
            for (int i = 0; i < 3; i++) {
                server.client().header("X-Replace-Entity", "yes").get("/api/reports").then().statusCode(200)
                        .body(equalTo("replaced"));
            }
        }
    }

    /**
     * An application's response filter that throws after Sluice's ran ends the response filters before
     * {@link io.sluice.jaxrs.internal.ResponseCompletion}'s, and no entity is written: the lease is released when the
     * servlet request ends, by the initializer's listener. The filter turns Sluice's 429 into a 500 too, so each
     * request is followed by one without the header, which a lease kept would answer 429.
     */
    @Test
    void aLeaseIsReleasedWhenAResponseFilterThatRunsLaterThrows() throws Exception {
        try (JaxrsServer server = start(true)) {
            for (int i = 0; i < 3; i++) {
                server.client().header("X-Fail", "yes").get("/api/reports").then().statusCode(500);
                eventually(server, "/api/reports", 200);         // released after the container's 500 went out
            }
        }
    }

    @Test
    void aLeaseIsReleasedWhenAnOuterWriterInterceptorWritesTheBodyItself() throws Exception {
        try (JaxrsServer server = start(false)) {
            for (int i = 0; i < 3; i++) {
                server.client().header("X-Own-Writer", "yes").get("/api/reports").then().statusCode(200)
                        .body(equalTo("own"));
            }
        }
    }

    @Test
    void aLeaseIsReleasedWhenAMapperAnswersTheException() throws Exception {
        try (JaxrsServer server = start(false)) {
            for (int i = 0; i < 3; i++) {
                server.client().get("/api/conflicting-reports").then().statusCode(409).body(equalTo("conflict"));
            }
            threeInARow(server, c -> c.get("/api/conflicting-reports?empty"), 409);
        }
    }

    @Test
    void aLeaseIsReleasedForAHeadRequest() throws Exception {
        try (JaxrsServer server = start(false)) {
            threeInARow(server, c -> c.head("/api/reports"), 200);
        }
    }

    /** With the initializer too: its end-of-request listener must not release a lease the stream still holds. */
    @ParameterizedTest(name = "initializer: {0}")
    @ValueSource(booleans = {false, true})
    void aStreamedBodyHoldsItsLeaseUntilItIsWritten(boolean initializer) throws Exception {
        try (JaxrsServer server = start(initializer); Socket socket = new Socket("127.0.0.1", server.port())) {
            InputStream in = send(socket, "GET /app/api/streams HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
            CountDownLatch writing = Resources.Streams.WRITING.poll(10, TimeUnit.SECONDS);
            assertThat(writing).as("the stream started").isNotNull();
            readUntil(in, "start\n");

            server.client().get("/api/streams").then().statusCode(429);         // still streaming: its lease held

            writing.countDown();
            readUntil(in, "end");
            eventuallyStreams(server);
        }
    }

    @Test
    void aClientThatGoesAwayWhileTheBodyStreamsReleasesTheLease() throws Exception {
        try (JaxrsServer server = start(false)) {
            CountDownLatch writing;
            try (Socket socket = new Socket("127.0.0.1", server.port())) {
                InputStream in = send(socket, "GET /app/api/streams HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
                writing = Resources.Streams.WRITING.poll(10, TimeUnit.SECONDS);
                assertThat(writing).as("the stream started").isNotNull();
                readUntil(in, "start\n");
                server.client().get("/api/streams").then().statusCode(429);
            }                                                                   // the client goes away
            writing.countDown();                                                // the stream goes on writing
            eventuallyStreams(server);
        }
    }

    /** With the initializer too: the first dispatch ends before the response, which must not release the lease. */
    @ParameterizedTest(name = "initializer: {0}")
    @ValueSource(booleans = {false, true})
    void anAsyncResourceHoldsItsLeaseUntilItIsResumed(boolean initializer) throws Exception {
        try (JaxrsServer server = start(initializer)) {
            CompletableFuture<Response> first = CompletableFuture.supplyAsync(
                    () -> server.client().get("/api/async-reports"));
            AsyncResponse held = Resources.AsyncReports.HELD.poll(10, TimeUnit.SECONDS);
            assertThat(held).as("the request reached the resource").isNotNull();
            server.client().get("/api/async-reports").then().statusCode(429);

            held.resume("done");
            assertThat(first.get(10, TimeUnit.SECONDS).body().asString()).isEqualTo("done");
            for (int i = 0; i < 2; i++) {
                CompletableFuture<Response> next = CompletableFuture.supplyAsync(
                        () -> server.client().get("/api/async-reports"));
                AsyncResponse again = Resources.AsyncReports.HELD.poll(10, TimeUnit.SECONDS);
                assertThat(again).as("admitted: the lease was released").isNotNull();
                again.resume("again");
                assertThat(next.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            }
        }
    }

    /**
     * An async resource resumed with an exception no {@code ExceptionMapper} handles: Jersey may hand it to the
     * container without running the response filters, so the lease is released at the end of the async cycle, by the
     * initializer's listener.
     */
    @Test
    void anAsyncResourceResumedWithAnUnmappedExceptionReleasesItsLease() throws Exception {
        try (JaxrsServer server = start(true)) {
            for (int i = 0; i < 3; i++) {
                Held held = eventuallyHeld(server);
                held.async().resume(new IllegalStateException("the report failed"));
                assertThat(held.response().get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(500);
            }
        }
    }

    /**
     * A rule that counts by outcome is charged for the status the client gets, which an application's filter that runs
     * after Sluice's may set: rule "unauthorized" counts 401s, two an hour.
     */
    @Test
    void aRuleCountingByOutcomeIsChargedForTheStatusALaterResponseFilterSets() throws Exception {
        Path rules = dir.resolve("rules.yaml");
        Files.writeString(rules, """
                rules:
                  - name: unauthorized
                    paths: [/api/reports]
                    limit: 2/1h
                    algorithm: sliding-log
                    count-status: [401]
                """);
        try (JaxrsServer server = start(new JaxrsServer.Setup().property("sluice.rules", rules.toString()), false)) {
            server.client().get("/api/reports").then().statusCode(200);               // 200s count nothing
            for (int i = 0; i < 2; i++) {
                server.client().header("X-Status", "401").get("/api/reports").then().statusCode(401);
            }
            server.client().get("/api/reports").then().statusCode(429)
                    .header("RateLimit-Policy", "\"unauthorized\";q=2;w=3600");
        }
    }

    static InputStream send(Socket socket, String request) throws IOException {
        socket.setSoTimeout(10_000);
        socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        return socket.getInputStream();
    }

    /** Reads {@code in} until what was read holds {@code text} (the socket's timeout bounds it). */
    static void readUntil(InputStream in, String text) throws IOException {
        StringBuilder read = new StringBuilder();
        while (read.indexOf(text) < 0) {
            int b = in.read();
            assertThat(b).as("the response went on until \"%s\"", text).isNotEqualTo(-1);
            read.append((char) b);
        }
    }

    /**
     * Waits, bounded, for a request to {@code path} to be admitted: a lease released when the request ends (after the
     * response) or when a stream the client left fails, which the client may not see happen. Waiting for an event on
     * another thread, not moving time.
     */
    static void eventually(JaxrsServer server, String path, int status) {
        Instant deadline = Instant.now().plusSeconds(5);
        int answer;
        while ((answer = server.client().get(path).statusCode()) == 429) {
            assertThat(Instant.now()).as("a lease was never released").isBefore(deadline);
            Thread.onSpinWait();
        }
        assertThat(answer).isEqualTo(status);
    }

    /** A request to {@code /api/async-reports} that its resource holds, and the response it will get. */
    private record Held(CompletableFuture<Response> response, AsyncResponse async) {}

    /**
     * Sends {@code GET /api/async-reports} until the resource holds one (it was admitted), within 5 s: a lease that
     * the end of the request releases may be released just after the client got its response.
     */
    private static Held eventuallyHeld(JaxrsServer server) throws Exception {
        Instant deadline = Instant.now().plusSeconds(5);
        while (true) {
            CompletableFuture<Response> response = CompletableFuture.supplyAsync(
                    () -> server.client().get("/api/async-reports"));
            AsyncResponse async = null;
            while (!response.isDone() && async == null) {
                async = Resources.AsyncReports.HELD.poll(10, TimeUnit.MILLISECONDS);
            }
            if (async != null) {
                return new Held(response, async);
            }
            assertThat(response.get().statusCode()).isEqualTo(429);
            assertThat(Instant.now()).as("a lease was never released").isBefore(deadline);
        }
    }

    /**
     * {@link #eventually} for the streaming resource, whose admitted request waits for the test's latch. The client may
     * see the status before the stream hands its latch over (it flushed its first part), or the other way round.
     */
    private static void eventuallyStreams(JaxrsServer server) throws Exception {
        Instant deadline = Instant.now().plusSeconds(5);
        while (true) {
            CompletableFuture<Response> probe = CompletableFuture.supplyAsync(
                    () -> server.client().get("/api/streams"));
            CountDownLatch writing = null;
            while (!probe.isDone() && writing == null) {
                writing = Resources.Streams.WRITING.poll(10, TimeUnit.MILLISECONDS);
            }
            if (writing == null && probe.get().statusCode() == 200) {
                writing = Resources.Streams.WRITING.poll(10, TimeUnit.SECONDS);
            }
            if (writing != null) {
                writing.countDown();
                Response admitted = probe.get(10, TimeUnit.SECONDS);
                assertThat(admitted.statusCode()).isEqualTo(200);
                assertThat(admitted.body().asString()).endsWith("end");
                return;
            }
            assertThat(probe.get().statusCode()).isEqualTo(429);
            assertThat(Instant.now()).as("the lease was never released").isBefore(deadline);
        }
    }
}
