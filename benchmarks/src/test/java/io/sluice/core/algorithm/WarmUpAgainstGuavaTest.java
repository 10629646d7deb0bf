package io.sluice.core.algorithm;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.util.concurrent.GuavaWarmUp;
import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Policy;
import io.sluice.core.policy.WarmUpSettings;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Sluice's warm-up decides exactly like Guava's own {@code SmoothWarmingUp}, step for step. Here, beside the other
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
}
