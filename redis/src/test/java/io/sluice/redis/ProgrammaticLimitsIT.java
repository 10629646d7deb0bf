package io.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.policy.Algorithm;
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

    /**
     * Issue 30's minimal cases, at t = 0: the engine on Redis, its denial cache on, answers each cost as the memory
     * store does, field for field, where the cache used to repeat a remembered denial: a token bucket {@code 3/1s}
     * asked for 3, 1, then 4 (never) or 3 (a retry for all three tokens); a fixed window {@code 10/1s} asked for 8, 3,
     * 1, 3 (remaining 1, after the 1 admitted).
     */
    @Test
    void aRememberedDenialAnswersEachCostAsTheStoreDoes() throws Exception {
        Policy bucket = Policy.parse("3/1s").withAlgorithm(Algorithm.TOKEN_BUCKET);
        Policy window = Policy.parse("10/1s").withAlgorithm(Algorithm.FIXED_WINDOW);
        try (RedisProcess redis = RedisProcess.start(); Engine engine = engine(redis);
                Engine memory = Engine.builder().timeSource(time).build()) {
            assertThat(bothSay(engine, memory, "never", bucket, 3, 1, 4).never()).isTrue();
            assertThat(bothSay(engine, memory, "all three", bucket, 3, 1, 3).retryAfterMicros()).isEqualTo(999_999);
            assertThat(bothSay(engine, memory, "admitted", window, 8, 3, 1, 3).remaining()).isEqualTo(1);
        }
    }

    /** Each cost in turn on both engines, under limit {@code name}: every answer equal; the last one. */
    private static Outcome bothSay(Engine redis, Engine memory, String name, Policy policy, long... costs) {
        Outcome expected = null;
        for (long cost : costs) {
            expected = memory.tryAcquire(name, "k", policy, cost);
            assertThat(redis.tryAcquire(name, "k", policy, cost)).as("%s, cost %d", policy, cost).isEqualTo(expected);
        }
        return expected;
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
