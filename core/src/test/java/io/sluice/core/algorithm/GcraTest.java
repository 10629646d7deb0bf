package io.sluice.core.algorithm;

import static io.sluice.core.algorithm.FixedWindowTest.times;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Policy;
import org.junit.jupiter.api.Test;

class GcraTest {

    private static final Gcra GCRA = new Gcra();

    @Test
    void burstThenSpacing() {
        Timeline.of(GCRA, "5/1s burst 2")
                .expect("0ms allow remaining=1 reset=200ms", "0ms allow remaining=0 reset=400ms")
                .expect("0ms deny remaining=0 retry=200ms", "199ms deny retry=1ms", "200ms allow", "300ms deny retry=100ms")
                .expect("400ms allow", "600ms allow", "1400ms allow remaining=1", "1400ms allow", "1400ms deny");
    }

    @Test
    void tenPerMinuteLetsTenThroughThenOneEverySixSeconds() {
        Timeline.of(GCRA, "10/1m")
                .expect(times("0s", 9, "allow"))
                .expect("0s allow remaining=0 reset=60s", "0s deny retry=6s", "6s allow", "6s deny retry=6s", "12s allow");
    }

    @Test
    void theReadmeExamplesLetTheLimitThroughAtOnceThenOneEveryInterval() {
        Timeline.of(GCRA, "10/1s").expect(times("0s", 10, "allow")).expect("0s deny retry=100ms", "100ms allow");
        // the quick start: "a rested client may send 100 at once, then one every 600 ms"
        Timeline.of(GCRA, "100/1m")
                .expect(times("0s", 100, "allow"))
                .expect("0s deny remaining=0 retry=600ms", "600ms allow", "600ms deny retry=600ms", "1200ms allow");
    }

    @Test
    void burstOneSpacesEveryRequest() {
        Timeline.of(GCRA, "10/1s burst 1").expect("0ms allow", "50ms deny retry=50ms", "100ms allow", "200ms allow");
    }

    @Test
    void costAboveTheBurstIsNeverAndCostsSpendTheirShare() {
        Timeline.of(GCRA, "5/1s burst 5")
                .expect("0ms cost=6 deny retry=never remaining=5", "0ms cost=3 allow remaining=2")
                .expect("0ms cost=3 deny retry=200ms", "0ms cost=0 allow remaining=2 reset=600ms", "200ms cost=3 allow");
    }

    @Test
    void aClockGoingBackwardsMintsNothing() {
        Timeline.of(GCRA, "1/1s burst 1").expect("10s allow", "9s deny retry=2s", "11s allow");
    }

    static Policy gcra(String notation) {
        return Policy.parse(notation).withAlgorithm(Algorithm.GCRA);
    }
}
