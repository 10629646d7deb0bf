package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.Engine;
import io.sluice.core.request.RequestView;
import io.sluice.core.Rule;
import io.sluice.core.policy.PolicyParser;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.testing.ManualTimeSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The README's example responses, header for header, from the real engine, memory store and responder, compared with
 * the README's text; and what its quick start says of GCRA.
 */
class ReadmeHeaderExamplesTest {

    private static final RequestView REQUEST = RequestView.builder("GET", "/").remoteAddress("203.0.113.9").build();

    private final ManualTimeSource time = new ManualTimeSource();

    private Engine engine(String name, String notation, Algorithm algorithm) {
        Rule rule = Rule.builder(name).policy(PolicyParser.parse("limit", notation, algorithm))
                .key(RequestView::remoteAddress).build();
        return Engine.builder().timeSource(time).store(MemoryStore.builder().timeSource(time).build())
                .rules(List.of(rule)).build();
    }

    private Reply reply(Responder responder, Engine engine) {
        return responder.reply(engine.check(REQUEST), REQUEST, time.nowMicros());
    }

    private static List<String> lines(Reply reply) {
        return reply.headers().stream().map(h -> h.name() + ": " + h.value()).toList();
    }

    private static void admit(Engine engine, int n) {
        for (int i = 0; i < n; i++) {
            assertThat(engine.check(REQUEST).allowed()).isTrue();
        }
    }

    @Test
    void theDemosHelloIsAFixedWindowOfFivePerTenSeconds() {
        Engine engine = engine("hello", "5/10s", Algorithm.FIXED_WINDOW);
        time.set(1_795_375_141_000_000L);                    // 1 s into the window that ends at 1795375150
        assertThat(lines(reply(Responder.builder().build(), engine))).containsExactly(
                "RateLimit-Policy: \"hello\";q=5;w=10", "RateLimit: \"hello\";r=4;t=9", "X-RateLimit-Limit: 5",
                "X-RateLimit-Remaining: 4", "X-RateLimit-Reset: 1795375150");
        admit(engine, 4);
        time.advanceMicros(3_000_000);
        Reply denied = reply(Responder.builder().build(), engine);
        assertThat(lines(denied)).containsExactly(
                "RateLimit-Policy: \"hello\";q=5;w=10", "RateLimit: \"hello\";r=0;t=6", "X-RateLimit-Limit: 5",
                "X-RateLimit-Remaining: 0", "X-RateLimit-Reset: 1795375150", "Retry-After: 6", "Cache-Control: no-store");
        assertThat(denied.body()).isEqualTo("{\"error\":{\"code\":\"rate_limited\",\"message\":\"Request quota exceeded. "
                + "Wait 6 seconds and try again.\",\"context\":{\"renewal\":1795375150000,\"policy\":\"hello\",\"limit\":5,"
                + "\"remaining\":0}}}");
    }

    @Test
    void theDemosGreetingIsGcraOfThreePerTenSeconds() {
        Engine engine = engine("jaxrs-greeting", "3/10s", null);
        time.set(1_795_461_287_054_667L);
        assertThat(lines(reply(Responder.builder().build(), engine))).containsExactly(
                "RateLimit-Policy: \"jaxrs-greeting\";q=3;w=10", "RateLimit: \"jaxrs-greeting\";r=2;t=4",
                "X-RateLimit-Limit: 3", "X-RateLimit-Remaining: 2", "X-RateLimit-Reset: 1795461291");
        admit(engine, 2);
        Reply denied = reply(Responder.builder().build(), engine);
        assertThat(lines(denied)).containsExactly(
                "RateLimit-Policy: \"jaxrs-greeting\";q=3;w=10", "RateLimit: \"jaxrs-greeting\";r=0;t=4",
                "X-RateLimit-Limit: 3", "X-RateLimit-Remaining: 0", "X-RateLimit-Reset: 1795461291", "Retry-After: 4",
                "Cache-Control: no-store");
        assertThat(denied.body()).contains("\"message\":\"Request quota exceeded. Wait 4 seconds and try again.\"",
                "\"renewal\":1795461290388,\"policy\":\"jaxrs-greeting\",\"limit\":3,\"remaining\":0");
    }

    /** The README's 429, as its "What a client sees" shows it (2026-11-23 09:20:00 UTC): lines, body and all. */
    @Test
    void theQuickStartsHundredPerMinuteDeniesTheHundredAndFirstForSixHundredMilliseconds() throws IOException {
        Engine engine = engine("per-ip", "100/1m", null);
        time.set(1_795_425_600_000_000L);
        admit(engine, 100);
        Reply denied = reply(Responder.builder().build(), engine);
        assertThat(lines(denied)).containsExactly(
                "RateLimit-Policy: \"per-ip\";q=100;w=60", "RateLimit: \"per-ip\";r=0;t=1", "X-RateLimit-Limit: 100",
                "X-RateLimit-Remaining: 0", "X-RateLimit-Reset: 1795425601", "Retry-After: 1", "Cache-Control: no-store");
        assertThat(denied.body()).isEqualTo("{\"error\":{\"code\":\"rate_limited\",\"message\":\"Request quota exceeded. "
                + "Wait 1 second and try again.\",\"context\":{\"renewal\":1795425600600,\"policy\":\"per-ip\","
                + "\"limit\":100,\"remaining\":0}}}");
        List<String> shown = new ArrayList<>(lines(denied));
        shown.addAll(List.of("Content-Type: " + denied.contentType(), "", denied.body()));
        assertThat(readmeExample("HTTP/1.1 429 Too Many Requests")).containsExactlyElementsOf(shown);
    }

    /** The README's admitted request, as its "What a client sees" shows it (2026-11-23 09:19:37 UTC). */
    @Test
    void whatAClientSees() throws IOException {
        Engine engine = engine("per-ip", "100/1m", null);
        Responder responder = Responder.builder().denyHeader("Access-Control-Allow-Origin", "*").build();
        time.set(1_795_425_577_000_000L);
        admit(engine, 58);
        List<String> admitted = lines(reply(responder, engine));
        assertThat(admitted).containsExactly(
                "RateLimit-Policy: \"per-ip\";q=100;w=60", "RateLimit: \"per-ip\";r=41;t=1", "X-RateLimit-Limit: 100",
                "X-RateLimit-Remaining: 41", "X-RateLimit-Reset: 1795425613");
        assertThat(readmeExample("HTTP/1.1 200 OK")).containsExactlyElementsOf(admitted);
        admit(engine, 41);
        Reply denied = reply(responder, engine);
        assertThat(lines(denied)).containsExactly(
                "RateLimit-Policy: \"per-ip\";q=100;w=60", "RateLimit: \"per-ip\";r=0;t=1", "X-RateLimit-Limit: 100",
                "X-RateLimit-Remaining: 0", "X-RateLimit-Reset: 1795425578", "Retry-After: 1", "Cache-Control: no-store",
                "Access-Control-Allow-Origin: *");
        assertThat(denied.body()).contains("\"renewal\":1795425577600");
    }

    /**
     * Issue 30: the quick start's words on GCRA, by a rested client that asks every 10 ms: {@code 5/10s} admits 9 in
     * the first 10 s and {@code 100/1m} 199 in the first minute; the fixed window the README offers admits 100.
     */
    @Test
    void theQuickStartsWordsOnGcraAndTheFixedWindowHold() {
        assertThat(admittedWithin("5/10s", null, 10)).isEqualTo(9);
        assertThat(admittedWithin("100/1m", null, 60)).isEqualTo(199);
        assertThat(admittedWithin("100/1m", Algorithm.FIXED_WINDOW, 60)).isEqualTo(100);
    }

    /** @return how many requests a client asking every 10 ms, from the start of a minute, gets in {@code seconds} */
    private int admittedWithin(String notation, Algorithm algorithm, int seconds) {
        Engine engine = engine("per-ip", notation, algorithm);
        time.set(1_795_425_600_000_000L);                          // a whole minute: the fixed window starts there
        int admitted = 0;
        for (int tick = 0; tick < seconds * 100; tick++) {
            while (engine.check(REQUEST).allowed()) {
                admitted++;
            }
            time.advanceMicros(10_000);
        }
        return admitted;
    }

    /**
     * @return the lines of README.md's {@code http} block that opens with {@code statusLine}, after it (headers, the
     *     blank line, the body)
     */
    private static List<String> readmeExample(String statusLine) throws IOException {
        List<String> readme = Files.readAllLines(Path.of("..", "README.md"));
        int at = readme.indexOf(statusLine);
        assertThat(at).as("README.md shows %s", statusLine).isNotNegative();
        List<String> block = new ArrayList<>();
        for (int i = at + 1; i < readme.size() && !readme.get(i).startsWith("```"); i++) {
            block.add(readme.get(i));
        }
        return block;
    }

    @Test
    void warmUpStatesItsLimitButNeverMoreThanOneRemaining() {
        Engine engine = engine("warm-up", "5/1s warm-up 10s", null);
        assertThat(lines(reply(Responder.builder().headers(Responder.HeaderStyle.IETF).build(), engine)))
                .containsExactly("RateLimit-Policy: \"warm-up\";q=5;w=1", "RateLimit: \"warm-up\";r=0;t=1");
    }
}
