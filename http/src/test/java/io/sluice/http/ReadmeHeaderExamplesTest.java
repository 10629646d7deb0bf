package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.Engine;
import io.sluice.core.request.RequestView;
import io.sluice.core.Rule;
import io.sluice.core.policy.PolicyParser;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.testing.ManualTimeSource;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The README's example responses, header for header, from the real engine, memory store and responder. */
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

    @Test
    void theQuickStartsHundredPerMinuteDeniesTheHundredAndFirstForSixHundredMilliseconds() {
        Engine engine = engine("per-ip", "100/1m", null);
        time.set(1_763_812_800_000_000L);
        admit(engine, 100);
        Reply denied = reply(Responder.builder().build(), engine);
        assertThat(lines(denied)).containsExactly(
                "RateLimit-Policy: \"per-ip\";q=100;w=60", "RateLimit: \"per-ip\";r=0;t=1", "X-RateLimit-Limit: 100",
                "X-RateLimit-Remaining: 0", "X-RateLimit-Reset: 1763812801", "Retry-After: 1", "Cache-Control: no-store");
        assertThat(denied.body()).isEqualTo("{\"error\":{\"code\":\"rate_limited\",\"message\":\"Request quota exceeded. "
                + "Wait 1 second and try again.\",\"context\":{\"renewal\":1763812800600,\"policy\":\"per-ip\","
                + "\"limit\":100,\"remaining\":0}}}");
    }

    @Test
    void whatAClientSees() {
        Engine engine = engine("per-ip", "100/1m", null);
        Responder responder = Responder.builder().denyHeader("Access-Control-Allow-Origin", "*").build();
        time.set(1_699_920_037_000_000L);
        admit(engine, 58);
        assertThat(lines(reply(responder, engine))).containsExactly(
                "RateLimit-Policy: \"per-ip\";q=100;w=60", "RateLimit: \"per-ip\";r=41;t=1", "X-RateLimit-Limit: 100",
                "X-RateLimit-Remaining: 41", "X-RateLimit-Reset: 1699920073");
        admit(engine, 41);
        Reply denied = reply(responder, engine);
        assertThat(lines(denied)).containsExactly(
                "RateLimit-Policy: \"per-ip\";q=100;w=60", "RateLimit: \"per-ip\";r=0;t=1", "X-RateLimit-Limit: 100",
                "X-RateLimit-Remaining: 0", "X-RateLimit-Reset: 1699920038", "Retry-After: 1", "Cache-Control: no-store",
                "Access-Control-Allow-Origin: *");
        assertThat(denied.body()).contains("\"renewal\":1699920037600");
    }

    @Test
    void warmUpStatesItsLimitButNeverMoreThanOneRemaining() {
        Engine engine = engine("warm-up", "5/1s warm-up 10s", null);
        assertThat(lines(reply(Responder.builder().headers(Responder.HeaderStyle.IETF).build(), engine)))
                .containsExactly("RateLimit-Policy: \"warm-up\";q=5;w=1", "RateLimit: \"warm-up\";r=0;t=1");
    }
}
