package io.sluice.core.algorithm;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LeakyBucketTest {

    private static final LeakyBucket LEAKY = new LeakyBucket();

    @Test
    void asAMeterItRejectsWhatDoesNotFitAndReportsWhenItWould() {
        Timeline.of(LEAKY, leaky("2/1s burst 3"))
                .expect("0ms allow delay=0ms remaining=2", "0ms allow", "0ms allow remaining=0 reset=1500ms")
                .expect("0ms deny retry=500ms", "500ms allow", "500ms deny retry=500ms");
    }

    @Test
    void asAQueueEachRequestWaitsItsTurn() {
        Timeline.of(LEAKY, leaky("2/1s burst 3 max-wait 5s"))
                .expect("0ms allow delay=0ms", "0ms allow delay=500ms", "0ms allow delay=1000ms")
                .expect("0ms deny retry=500ms", "500ms allow delay=1000ms");
    }

    @Test
    void burstPlusFiveQueuesTheBurstAtTheRateAndRejectsFive() {
        int burst = 8;
        Policy policy = leaky("10/1s burst " + burst + " max-wait 10s");
        Timeline<LeakyBucket.State> t = Timeline.of(LEAKY, policy);
        List<Long> delays = new ArrayList<>();
        int rejected = 0;
        for (int i = 0; i < burst + 5; i++) {
            Outcome o = t.apply(Timeline.at("0s"), 1);
            if (o.allowed()) {
                delays.add(o.delayMicros());
            } else {
                rejected++;
            }
        }
        assertThat(delays).containsExactly(0L, 100_000L, 200_000L, 300_000L, 400_000L, 500_000L, 600_000L, 700_000L);
        assertThat(rejected).isEqualTo(5);
    }

    @Test
    void theDelayThresholdLetsTheFirstExcessRequestsPassAtOnce() {
        // nginx "burst=3 delay=2": the request in service and two excess pass at once, the next waits one interval
        Timeline.of(LEAKY, leaky("2/1s burst 4 max-wait 5s delay 2"))
                .expect("0ms allow delay=0ms", "0ms allow delay=0ms", "0ms allow delay=0ms", "0ms allow delay=500ms")
                .expect("0ms deny retry=500ms");
    }

    @Test
    void aRequestThatWouldWaitLongerThanTheMaximumIsDeniedAndConsumesNothing() {
        Timeline.of(LEAKY, leaky("2/1s burst 10 max-wait 1s"))
                .expect("0ms allow delay=0ms", "0ms allow delay=500ms", "0ms allow delay=1000ms")
                .expect("0ms deny retry=500ms", "0ms deny retry=500ms", "500ms allow delay=1000ms");
    }

    @Test
    void costAboveTheCapacityIsNever() {
        Timeline.of(LEAKY, leaky("2/1s burst 3")).expect("0ms cost=4 deny retry=never", "0ms cost=3 allow remaining=0");
    }

    @Test
    void asAMeterItDecidesExactlyLikeGcra() {
        Policy policy = leaky("7/1s burst 4");
        Timeline<LeakyBucket.State> leaky = Timeline.of(LEAKY, policy);
        Timeline<Gcra.State> gcra = Timeline.of(new Gcra(), policy.withAlgorithm(Algorithm.GCRA));
        java.util.Random random = new java.util.Random(7);
        long now = Timeline.at("0s");
        for (int i = 0; i < 5_000; i++) {
            now += random.nextInt(200_000);
            long cost = random.nextInt(6);
            assertThat(leaky.apply(now, cost)).as("request %d", i).isEqualTo(gcra.apply(now, cost));
        }
    }

    static Policy leaky(String notation) {
        return Policy.parse(notation).withAlgorithm(Algorithm.LEAKY_BUCKET);
    }
}
