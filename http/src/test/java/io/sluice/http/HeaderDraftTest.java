package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.Decision;
import io.sluice.core.Engine;
import io.sluice.core.Rule;
import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.PolicyParser;
import io.sluice.core.request.RequestView;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.testing.ManualTimeSource;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code t} of the {@code RateLimit} field per algorithm under draft -11 (the effective window: the seconds within
 * which the client can use no more than {@code r}) and draft -10 ({@code header-draft=10}), from the real engine and
 * memory store on a manual clock; and a 429's {@code Retry-After} is never earlier than the end of {@code t}.
 */
class HeaderDraftTest {

    private static final RequestView REQUEST = RequestView.builder("GET", "/").remoteAddress("203.0.113.9").build();
    private static final Responder DRAFT_11 = Responder.builder().build();
    private static final Responder DRAFT_10 = Responder.builder().headerDraft(Responder.HeaderDraft.DRAFT_10).build();

    private final ManualTimeSource time = new ManualTimeSource();

    private Engine engine(String notation, Algorithm algorithm) {
        Rule rule = Rule.builder("r").policy(PolicyParser.parse("limit", notation, algorithm))
                .key(RequestView::remoteAddress).build();
        time.set(1_800_000_000_000_000L);               // on a whole ten seconds: a fixed window starts here
        return Engine.builder().timeSource(time).store(MemoryStore.builder().timeSource(time).build())
                .rules(List.of(rule)).build();
    }

    /** The next request's replies under both drafts (one decision, so both describe the same state). */
    private Reply[] next(Engine engine) {
        Decision d = engine.check(REQUEST);
        return new Reply[] {DRAFT_11.reply(d, REQUEST, time.nowMicros()), DRAFT_10.reply(d, REQUEST, time.nowMicros())};
    }

    private static void admit(Engine engine, int n) {
        for (int i = 0; i < n; i++) {
            assertThat(engine.check(REQUEST).allowed()).isTrue();
        }
    }

    /** {@code r;t} of the RateLimit field, {@code t} left out when not sent. */
    private static String rt(Reply reply) {
        return reply.header("RateLimit").replace("\"r\";", "").replace("r=", "").replace(";t=", ";");
    }

    private static void retryAfterNotBeforeT(Reply denied) {
        assertThat(denied.status()).isEqualTo(429);
        String rateLimit = denied.header("RateLimit");
        if (rateLimit.contains(";t=")) {
            long t = Long.parseLong(rateLimit.replaceAll(".*;t=", ""));
            assertThat(Long.parseLong(denied.header("Retry-After"))).as(rateLimit).isGreaterThanOrEqualTo(t);
        }
    }

    @Test
    void fixedWindowIsTheTimeToTheWindowsEndInBoth() {
        Engine engine = engine("10/10s", Algorithm.FIXED_WINDOW);
        time.advanceMicros(1_000_000);
        Reply[] first = next(engine);
        assertThat(rt(first[0])).isEqualTo("9;9");
        assertThat(rt(first[1])).isEqualTo("9;9");
        admit(engine, 9);
        Reply[] denied = next(engine);
        assertThat(rt(denied[0])).isEqualTo("0;9");
        assertThat(rt(denied[1])).isEqualTo("0;9");
        assertThat(denied[0].header("Retry-After")).isEqualTo("9");
        retryAfterNotBeforeT(denied[0]);
    }

    /** GCRA, token and leaky bucket: one unit back every second ({@code 10/10s}); after 6 at once, 4 left. */
    private void aBucket(Algorithm algorithm) {
        Engine engine = engine("10/10s", algorithm);
        admit(engine, 5);
        Reply[] sixth = next(engine);
        assertThat(rt(sixth[0])).as("-11: the next unit is back in 1 s").isEqualTo("4;1");
        assertThat(rt(sixth[1])).as("-10: full again in 6 s").isEqualTo("4;6");
        assertThat(sixth[0].header("X-RateLimit-Reset")).isEqualTo(sixth[1].header("X-RateLimit-Reset"))
                .isEqualTo("1800000006");
        time.advanceMicros(400_000);
        Reply[] later = next(engine);                  // 0.4 s on: 0.6 s to the next unit, 6.6 s to full
        assertThat(rt(later[0])).isEqualTo("3;1");
        assertThat(rt(later[1])).isEqualTo("3;7");
        admit(engine, 3);
        Reply[] denied = next(engine);
        assertThat(rt(denied[0])).isEqualTo("0;1");
        assertThat(rt(denied[1])).isEqualTo("0;1");
        assertThat(denied[0].header("Retry-After")).isEqualTo("1");
        retryAfterNotBeforeT(denied[0]);
        retryAfterNotBeforeT(denied[1]);
    }

    @Test
    void gcraIsTheTimeUntilTheNextUnitIsBack() {
        aBucket(Algorithm.GCRA);
    }

    @Test
    void theTokenBucketIsTheTimeUntilTheNextToken() {
        aBucket(Algorithm.TOKEN_BUCKET);
    }

    @Test
    void theLeakyBucketIsTheTimeUntilTheNextUnitHasLeaked() {
        aBucket(Algorithm.LEAKY_BUCKET);
    }

    @Test
    void aFullBucketStatesOneEmissionIntervalAndADenialNeverMoreThanItsRetryTime() {
        io.sluice.core.policy.Policy gcra = PolicyParser.parse("limit", "10/10s", Algorithm.GCRA);
        // nothing used: the client can use all 10 within 1 s, and 11 within a little more
        assertThat(RateLimitFields.effectiveWindow(gcra, io.sluice.core.policy.Outcome.allow(10, 10, 0), true, 0))
                .isEqualTo(1_000_000);
        // a denial whose retry time is shorter than the next unit (numbers no bucket makes): clamped to it
        assertThat(RateLimitFields.effectiveWindow(gcra, io.sluice.core.policy.Outcome.deny(10, 0, 10_000_000, 300_000),
                false, 300_000)).isEqualTo(300_000);
    }

    @Test
    void theSlidingAlgorithmsKeepTheTimeUntilFullInBoth() {
        for (Algorithm algorithm : new Algorithm[] {Algorithm.SLIDING_WINDOW, Algorithm.SLIDING_LOG}) {
            Engine engine = engine("10/10s", algorithm);
            admit(engine, 5);
            Reply[] sixth = next(engine);
            assertThat(rt(sixth[0])).as(algorithm.id()).isEqualTo(rt(sixth[1]));
            admit(engine, 4);
            Reply[] denied = next(engine);
            assertThat(rt(denied[0])).as(algorithm.id()).isEqualTo(rt(denied[1])).matches("0;1[01]");
            retryAfterNotBeforeT(denied[0]);
        }
    }

    @Test
    void warmUpIsTheTimeUntilTheNextRequestMayPassInBoth() {
        Engine engine = engine("5/1s warm-up 10s", Algorithm.WARM_UP);
        Reply[] first = next(engine);
        assertThat(rt(first[0])).isEqualTo(rt(first[1])).isEqualTo("0;1");
        Reply[] denied = next(engine);
        assertThat(rt(denied[0])).isEqualTo(rt(denied[1])).isEqualTo("0;1");
        retryAfterNotBeforeT(denied[0]);
    }

    @Test
    void concurrencyStatesNoWindowUnderDraft11() {
        Engine engine = engine("2 concurrent", Algorithm.CONCURRENCY);
        admit(engine, 1);
        Reply[] second = next(engine);
        assertThat(rt(second[0])).isEqualTo("0");
        assertThat(rt(second[1])).isEqualTo("0");
        Reply[] denied = next(engine);
        assertThat(rt(denied[0])).as("room comes back when a request completes").isEqualTo("0");
        assertThat(denied[0].header("Retry-After")).isNotNull();
        assertThat(rt(denied[1])).as("-10: until the oldest lease times out").matches("0;\\d+");
        retryAfterNotBeforeT(denied[1]);
    }
}
