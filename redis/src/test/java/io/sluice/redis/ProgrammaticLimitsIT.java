package io.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.policy.Policy;
import io.sluice.core.policy.Outcome;
import io.sluice.core.Engine;
import io.sluice.core.Rule;
import io.sluice.core.Limiter;
import io.sluice.core.KeyLimiter;
import io.sluice.core.store.CircuitBreaker;
import io.sluice.core.testing.ManualTimeSource;
import io.sluice.core.testing.RedisProcess;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The programmatic API against a real redis-server: a denied hot key costs no round trip until its retry time, and an
 * outage (the server killed) is answered by the failure mode, never a {@code StoreException}, and opens the breaker.
 */
class ProgrammaticLimitsIT {

    private final ManualTimeSource time = new ManualTimeSource();

    private Engine engine(RedisProcess redis) {
        RedisStore store = RedisStore.builder().url(redis.url()).applicationTime(true)
                .timeout(Duration.ofMillis(500)).build();
        return Engine.builder().timeSource(time).store(store).build();
    }

    /** @return how many script calls the server has run: FCALL on Redis 7 and later, EVALSHA on 6.2 */
    private static long scriptCalls(RedisProcess redis) {
        return CommandStats.of(redis.url()).scriptCalls();
    }

    @Test
    void aHotKeyDeniedByRedisCostsNoRoundTripUntilItsRetryTime() throws Exception {
        try (RedisProcess redis = RedisProcess.start(); Engine engine = engine(redis)) {
            KeyLimiter hot = engine.limiter("hot", Policy.parse("100/1s")).key("k");
            for (int i = 0; i < 100; i++) {
                assertThat(hot.tryAcquire()).isTrue();
            }
            Outcome denied = hot.tryAcquire(1);
            assertThat(denied.allowed()).isFalse();
            long before = scriptCalls(redis);

            for (int i = 0; i < 1_000; i++) {
                assertThat(hot.tryAcquire(1).retryAfterMicros()).isEqualTo(denied.retryAfterMicros());
            }
            assertThat(scriptCalls(redis)).as("1,000 attempts at a denied key").isEqualTo(before);

            time.advanceMicros(denied.retryAfterMicros());
            assertThat(hot.tryAcquire()).as("its retry time has come: Redis is asked again").isTrue();
            assertThat(scriptCalls(redis)).isEqualTo(before + 1);
        }
    }

    @Test
    void aKilledRedisIsAnsweredByTheFailureModeAndOpensTheBreaker() throws Exception {
        try (RedisProcess redis = RedisProcess.start(); Engine engine = engine(redis)) {
            Policy ten = Policy.parse("10/1m");
            Limiter open = engine.limiter("partner", ten);
            Limiter closed = engine.limiter("partner", ten, Rule.FailureMode.DENY);
            assertThat(open.tryAcquire("acct-1", 1).remaining()).isEqualTo(9);

            redis.kill();
            Outcome allowed = engine.tryAcquire("partner", "acct-1", ten, 1);
            assertThat(allowed.allowed()).as("the default: allow, as a rule does").isTrue();
            assertThat(allowed.remaining()).isEqualTo(10);
            Outcome denied = closed.tryAcquire("acct-1", 1);
            assertThat(denied.allowed()).as("a limiter that denies meanwhile").isFalse();
            assertThat(denied.retryAfterMicros()).isEqualTo(1_000_000);
            assertThat(open.key("acct-1").tryAcquire()).isTrue();
            assertThat(engine.storeCircuit()).as("three failures in a row").isEqualTo(CircuitBreaker.State.OPEN);

            redis.restart();
            time.advance(Duration.ofMillis(500));
            assertThat(open.tryAcquire("acct-1", 1).remaining()).as("the probe reaches the restarted, empty Redis")
                    .isEqualTo(9);
            assertThat(engine.storeCircuit()).isEqualTo(CircuitBreaker.State.CLOSED);
        }
    }
}
