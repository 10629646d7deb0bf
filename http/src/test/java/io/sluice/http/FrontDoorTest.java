package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.Decision;
import io.sluice.core.request.RequestView;
import io.sluice.core.testing.ManualTimeSource;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FrontDoorTest {

    private static final RequestView CLIENT = RequestView.builder("GET", "/api").remoteAddress("203.0.113.9").build();

    /** A fixed window of 2 per second; the clock starts on a whole second. */
    private static FrontDoor door(ManualTimeSource time) {
        return FrontDoor.open(SluiceConfig.load(Parameters.of("sluice",
                Map.of("limit", "2/1s", "algorithm", "fixed-window"), "test"), SluiceConfig.files()), time);
    }

    @Test
    void epochValuesCountFromTheDecisionNotFromWhenTheResponseIsWritten() {
        ManualTimeSource time = new ManualTimeSource();
        long windowEnd = ManualTimeSource.START_MICROS + 1_000_000;
        time.advanceMicros(250_000);
        try (FrontDoor door = door(time)) {
            Decision allowed = door.check(CLIENT);
            time.advanceMicros(1);      // the response is written a moment after the decision
            Map<String, String> headers = new LinkedHashMap<>();
            door.allowedHeaders(allowed, CLIENT, headers::put);

            assertThat(allowed.atMicros()).isEqualTo(ManualTimeSource.START_MICROS + 250_000);
            assertThat(headers).containsEntry("X-RateLimit-Reset", Long.toString(windowEnd / 1_000_000))
                    .containsEntry("RateLimit", "\"per-ip\";r=1;t=1");

            door.check(CLIENT);
            Decision denied = door.check(CLIENT);
            time.advanceMicros(1);
            Reply reply = door.reply(denied, CLIENT);

            assertThat(reply.status()).isEqualTo(429);
            assertThat(reply.headers()).contains(new Reply.Header("X-RateLimit-Reset", Long.toString(windowEnd / 1_000_000)));
            assertThat(reply.body()).contains("\"renewal\":" + windowEnd / 1_000 + ",");
        }
    }

    @Test
    void anUnexpectedFailureOnEveryRequestIsLoggedAtMostOnceAMinute() {
        ManualTimeSource time = new ManualTimeSource();
        // a request whose reading fails in the container (a malformed header or URI some containers reject only when
        // read): one such failure per request a client sends
        RequestView odd = headersThrow(name -> new IllegalArgumentException("malformed header"));
        try (FrontDoor door = door(time); io.sluice.core.testing.LogCapture log =
                new io.sluice.core.testing.LogCapture(FrontDoor.class.getName())) {
            for (int i = 0; i < 100; i++) {
                assertThat(door.check(odd)).isSameAs(Decision.NO_RULES);
            }
            assertThat(log.messages()).hasSize(1);
            time.advance(java.time.Duration.ofSeconds(61));
            door.check(odd);

            assertThat(log.messages()).hasSize(2).last().asString().contains("99 more");
        }
    }

    @Test
    void anUnexpectedFailureThatQuotesTheRequestIsLoggedEscapedAndBounded() {
        ManualTimeSource time = new ManualTimeSource();
        String hostile = "GET\r\nFORGED SEVERE: rate limiting disabled\u001b[2J" + "x".repeat(100_000);
        // a container that quotes the header it cannot read in its exception, as sent
        RequestView odd = headersThrow(
                name -> new IllegalArgumentException("malformed value of header " + name + ": " + hostile));
        try (FrontDoor door = door(time); io.sluice.core.testing.LogCapture log =
                new io.sluice.core.testing.LogCapture(FrontDoor.class.getName())) {
            assertThat(door.check(odd)).isSameAs(Decision.NO_RULES);

            assertThat(log.lines()).isNotEmpty();
            assertThat(log.unsafeLines("FORGED", 1_000)).as("forged, unbounded or with an escape sequence").isEmpty();
            assertThat(String.join("\n", log.lines())).contains("rate limiting failed unexpectedly; allowing the request",
                    "java.lang.IllegalArgumentException: malformed value of header Access-Control-Request-Method: "
                            + "GET\\r\\nFORGED SEVERE", "... (" + (57 + hostile.length()) + " characters)",
                    "\tat " + FrontDoor.class.getName() + ".check");
        }
    }

    /** An {@code OPTIONS /api} request whose headers cannot be read: each read throws what {@code failure} gives. */
    private static RequestView headersThrow(java.util.function.Function<String, RuntimeException> failure) {
        return new RequestView() {
            @Override public String method() { return "OPTIONS"; }
            @Override public String path() { return "/api"; }
            @Override public String header(String name) { throw failure.apply(name); }
            @Override public java.util.List<String> headers(String name) { return java.util.List.of(header(name)); }
            @Override public String remoteAddress() { return "203.0.113.9"; }
            @Override public String principal() { return null; }
            @Override public Object attribute(String name) { return null; }
            @Override public String queryParameter(String name) { return null; }
        };
    }
}
