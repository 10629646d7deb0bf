package io.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.Engine;
import io.sluice.core.Rule;
import io.sluice.core.RuleOutcome;
import io.sluice.core.StoreHealth;
import io.sluice.core.request.RequestView;
import io.sluice.core.testing.LogCapture;
import io.sluice.core.testing.ManualTimeSource;
import io.sluice.core.testing.RedisProcess;
import java.time.Duration;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;

/**
 * Fail-open is loud against a real Redis store: with nothing listening at its address when the engine starts, the
 * first decisions are answered by the rules' failure modes, one ERROR line names the rules by mode and
 * {@link Engine#health()} says the store fails; once a redis-server listens there, one line says they are back.
 */
class StoreHealthIT {

    private static final RequestView REQUEST = RequestView.builder("GET", "/").remoteAddress("203.0.113.9").build();

    @Test
    void aRedisDownAtStartUpIsLoggedOnceByRuleAndModeAndAgainWhenItAnswers() throws Exception {
        ManualTimeSource time = new ManualTimeSource();
        int port = RedisProcess.freePort();
        RedisStore store = RedisStore.builder().url("redis://127.0.0.1:" + port).applicationTime(true)
                .timeout(Duration.ofMillis(200)).build();
        try (LogCapture log = new LogCapture(Engine.class.getName());
                Engine engine = Engine.builder().timeSource(time).store(store)
                        .rule(Rule.builder("site").policy("100/1m").key(RequestView::remoteAddress).build())
                        .rule(Rule.builder("login").policy("100/1m").key(RequestView::remoteAddress)
                                .onStoreFailure(Rule.FailureMode.DENY).build())
                        .build()) {
            for (int i = 0; i < 20; i++) {
                assertThat(engine.check(REQUEST).binding().source()).isEqualTo(RuleOutcome.Source.FAILURE_DENIED);
            }
            assertThat(log.errors()).singleElement().asString().contains(
                    "rate-limit store RedisStore failing since 2023-11-14T00:00:00Z (3 consecutive failures",
                    "unlimited (allow): site; refusing with 503 (deny): login");
            StoreHealth down = engine.health();
            assertThat(down.up()).isFalse();
            assertThat(down.failingSinceMicros()).isEqualTo(ManualTimeSource.START_MICROS);
            assertThat(down.outageDecisions()).isEqualTo(18);

            try (RedisProcess redis = RedisProcess.startOn(port)) {
                time.advance(Duration.ofSeconds(90));
                assertThat(engine.check(REQUEST).binding().source()).isEqualTo(RuleOutcome.Source.STORE);
                assertThat(log.at(Level.INFO).stream().filter(l -> l.contains("RedisStore answers again")))
                        .singleElement().asString().contains(" after 90 s failing", "18 decisions were answered by "
                                + "failure mode meanwhile", "were unlimited (allow): site; were refusing");
                assertThat(engine.health().up()).isTrue();
                assertThat(log.errors()).hasSize(1);
            }
        }
    }
}
