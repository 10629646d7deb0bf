package io.sluice.core.algorithm;

import static io.sluice.core.algorithm.FixedWindowTest.times;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import org.junit.jupiter.api.Test;

class SlidingWindowCounterTest {

    private static final SlidingWindowCounter SLIDING = new SlidingWindowCounter();

    @Test
    void theWeightedExampleFromTheIssue() {
        // limit 7 per minute; previous minute 5, current 3, 30% into the minute: 3 + 5 x 0.7 = 6.5 -> allowed
        Timeline.of(SLIDING, sliding("7/1m"))
                .expect(times("0s", 5, "allow"))
                .expect(times("61s", 3, "allow"))
                .expect("78s allow remaining=0")                   // estimate 6.5 before it
                // now 3 + 4 = 7.5: denied; passes once 5 x (60 - e) / 60 < 3, i.e. e > 24 s: 6 s and 1 µs later
                .expect("78s deny retry=6000001us", "84s deny retry=1us", "84000001us allow");
    }

    @Test
    void refusesTheFixedWindowEdgeBurst() {
        Timeline<SlidingWindowCounter.State> t = Timeline.of(SLIDING, sliding("10/1m")).expect(times("50s", 10, "allow"));
        int admitted = 0;
        for (int i = 0; i < 20; i++) {
            if (t.apply(Timeline.at("60s") + i * 50_000L, 1).allowed()) {
                admitted++;
            }
        }
        assertThat(admitted).as("10 just before the boundary leave room for no second burst of 10").isLessThanOrEqualTo(1);
    }

    @Test
    void tenPerMinuteAdmitsTenThenFollowsTheSlidingEstimate() {
        Timeline.of(SLIDING, sliding("10/1m"))
                .expect(times("0s", 10, "allow"))
                .expect("30s deny remaining=0 retry=30000001us reset=90s")   // at 60 s the 10 still weigh 10
                // at 66 s the previous 10 weigh floor(10 x 54 / 60) = 9: one passes
                .expect("66s allow remaining=0", "66s deny");
    }

    @Test
    void aCostThatDoesNotFitThisWindowWaitsForTheWeightOfTheNext() {
        // 6 of 10 used; cost 5 can never fit this window (6 + 5 > 10); next window the 6 weigh floor(6 x (60 - e) / 60),
        // at most 5 as soon as e > 0
        Timeline.of(SLIDING, sliding("10/1m"))
                .expect("0s cost=6 allow remaining=4", "10s cost=5 deny remaining=4 retry=50000001us")
                .expect("60s cost=5 deny retry=1us", "60000001us cost=5 allow")
                .expect("80s cost=11 deny retry=never");
    }

    @Test
    void costZeroPeeksAndAClockGoingBackwardsMintsNothing() {
        Timeline.of(SLIDING, sliding("2/1m"))
                .expect("60s cost=0 allow remaining=2 reset=0ms", "60s allow", "60s allow", "59s deny", "1s deny")
                .expect("120s deny", "150s allow");   // 2 x 30 / 60 = 1: room for one
    }

    @Test
    void retryAfterIsTheFirstMicrosecondThatPasses() {
        Policy policy = sliding("7/1s");
        Timeline<SlidingWindowCounter.State> t = Timeline.of(SLIDING, policy).expect(times("0s", 7, "allow"));
        long now = Timeline.at("1.3s");
        while (t.apply(now, 1).allowed()) {
            now += 1;
        }
        Outcome denied = t.apply(now, 1);
        SlidingWindowCounter.State state = t.state();
        assertThat(SLIDING.step(state, now + denied.retryAfterMicros() - 1, 1, policy).outcome().allowed()).isFalse();
        assertThat(SLIDING.step(state, now + denied.retryAfterMicros(), 1, policy).outcome().allowed()).isTrue();
    }

    @Test
    void resetAfterIsWhenBothCountsStopCountingWhichMayBeAfterTheEstimateIsFull() {
        // the Javadoc's example: one request at 0 s of 10/1m; remaining is 10 again from 60 s and 1 µs
        Timeline.of(SLIDING, sliding("10/1m"))
                .expect("0s allow remaining=9 reset=120s", "60000001us cost=0 allow remaining=10 reset=59999999us");
    }

    @Test
    void weightIsComputedInDoublesAndIsExactForSmallProducts() {
        assertThat(SlidingWindowCounter.weighted(5, 18_000_000, 60_000_000)).isEqualTo(3);   // 3.5
        assertThat(SlidingWindowCounter.weighted(5, 24_000_000, 60_000_000)).isEqualTo(3);   // exactly 3
        assertThat(SlidingWindowCounter.weighted(5, 24_000_001, 60_000_000)).isEqualTo(2);
        assertThat(SlidingWindowCounter.weighted(0, 0, 60_000_000)).isZero();
    }

    static Policy sliding(String notation) {
        return Policy.parse(notation).withAlgorithm(Algorithm.SLIDING_WINDOW);
    }
}
