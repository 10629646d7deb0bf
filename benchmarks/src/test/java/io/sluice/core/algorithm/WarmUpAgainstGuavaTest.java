package io.sluice.core.algorithm;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.util.concurrent.GuavaWarmUp;
import io.sluice.core.Engine;
import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import io.sluice.core.policy.WarmUpSettings;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.testing.ForwardingStore;
import io.sluice.core.testing.ManualTimeSource;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Sluice's warm-up decides exactly like Guava's own {@code SmoothWarmingUp}, step for step, and says when Guava would
 * let the next request pass. Here, beside the other
 * peers, rather than in core's tests: reaching Guava's package-private test factory puts a class in Guava's package,
 * which a test compiled into the {@code io.sluice.core} module cannot read.
 */
class WarmUpAgainstGuavaTest {

    private static final WarmUp WARM_UP = new WarmUp();

    @Test
    void decidesExactlyLikeGuavasSmoothWarmingUp() {
        Random random = new Random(2026);
        for (int round = 0; round < 20; round++) {
            long perSecond = 1 + random.nextInt(50);
            long warmupMicros = 100_000L + random.nextInt(5_000_000);
            int coldFactor = 1 + random.nextInt(5);
            Policy policy = Policy.of(Algorithm.WARM_UP, perSecond, Duration.ofSeconds(1))
                    .withSettings(new WarmUpSettings(warmupMicros, coldFactor));
            long now = Timeline.at("0s");
            GuavaWarmUp guava = new GuavaWarmUp(perSecond, warmupMicros, coldFactor, now);
            Timeline<WarmUp.State> sluice = Timeline.of(WARM_UP, policy);
            for (int i = 0; i < 2_000; i++) {
                now += random.nextInt((int) (3_000_000 / perSecond));
                int cost = 1 + random.nextInt((int) Math.min(perSecond, 4));
                boolean expected = guava.tryAcquire(now, cost);
                assertThat(sluice.apply(now, cost).allowed())
                        .as("round %d (%s), request %d, cost %d", round, policy, i, cost).isEqualTo(expected);
            }
        }
    }

    /**
     * Through an engine with its denial cache on (issue 30), before a store that is not the memory store (the path of
     * a Redis store), with mixed costs: every decision is Guava's, and every denial's retry-after and reset-after are
     * the wait until Guava's next free ticket, whether the store or the cache gave it. A cost above the limit, which
     * Guava would take on credit, can never pass: both say so.
     */
    @Test
    void decidesAndWaitsLikeGuavaWithTheDenialCacheOnAndMixedCosts() {
        Random random = new Random(2030);
        int denials = 0;
        for (int round = 0; round < 20; round++) {
            long perSecond = 1 + random.nextInt(50);
            long warmupMicros = 100_000L + random.nextInt(5_000_000);
            int coldFactor = 1 + random.nextInt(5);
            Policy policy = Policy.of(Algorithm.WARM_UP, perSecond, Duration.ofSeconds(1))
                    .withSettings(new WarmUpSettings(warmupMicros, coldFactor));
            ManualTimeSource time = new ManualTimeSource();
            GuavaWarmUp guava = new GuavaWarmUp(perSecond, warmupMicros, coldFactor, time.nowMicros());
            Engine engine = Engine.builder().timeSource(time)
                    .store(new ForwardingStore(MemoryStore.builder().timeSource(time).build())).build();
            for (int i = 0; i < 2_000; i++) {
                time.advanceMicros(random.nextInt(4) == 0 ? 0 : random.nextInt((int) (1_500_000 / perSecond)));
                long now = time.nowMicros();
                String at = "round " + round + " (" + policy + "), request " + i;
                if (random.nextInt(10) == 0) {
                    assertThat(engine.tryAcquire("warm", "k", policy, perSecond + 1).never()).as(at).isTrue();
                    continue;
                }
                int cost = 1 + random.nextInt((int) Math.min(perSecond, 4));
                long nextFree = guava.nextFreeMicros(now);
                Outcome outcome = engine.tryAcquire("warm", "k", policy, cost);
                assertThat(outcome.allowed()).as(at).isEqualTo(guava.tryAcquire(now, cost));
                if (!outcome.allowed()) {
                    denials++;
                    assertThat(outcome.retryAfterMicros()).as(at + ", cost " + cost).isEqualTo(nextFree - now);
                    assertThat(outcome.resetAfterMicros()).as(at + ", cost " + cost).isEqualTo(nextFree - now);
                }
            }
        }
        assertThat(denials).isPositive();
    }
}
