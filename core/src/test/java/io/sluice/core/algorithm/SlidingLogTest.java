package io.sluice.core.algorithm;

import static io.sluice.core.algorithm.FixedWindowTest.times;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.policy.Policy;
import org.junit.jupiter.api.Test;

class SlidingLogTest {

    private static final SlidingLog LOG = new SlidingLog();

    @Test
    void tenPerMinuteWithAtLeastTwoSecondsBetweenRequests() {
        Timeline<SlidingLog.State> t = Timeline.of(LOG, "10/1m min-interval 2s")
                .expect("0s allow remaining=9 reset=1m", "1s deny remaining=0 retry=1s", "1999999us deny retry=1us");
        for (int i = 1; i < 10; i++) {
            t.expect((2 * i) + "s allow");
        }
        t.expect("20s deny remaining=0 retry=40s", "59s deny retry=1s", "60s allow", "61s deny retry=1s", "62s allow");
    }

    @Test
    void fiveHundredPerHourIsExactOverEverySlidingHour() {
        Timeline<SlidingLog.State> t = Timeline.of(LOG, "500/1h");
        for (int i = 0; i < 500; i++) {
            t.expect((i * 6) + "s allow");                       // 500 requests over the first 50 minutes
        }
        t.expect("3000s deny retry=600s", "3600s allow", "3600s deny retry=6s", "3606s allow");
    }

    @Test
    void tenPerMinuteRefusesTheEdgeBurstAFixedWindowAllows() {
        Timeline.of(LOG, "10/1m min-interval 0s")
                .expect(times("50s", 10, "allow"))
                .expect("60s deny retry=50s", "109999999us deny retry=1us", "110s allow");
    }

    @Test
    void countingRejectedAttemptsKeepsAHammeringClientBlockedUntilItPauses() {
        Timeline.of(LOG, "3/1s count-rejected")
                .expect(times("0ms", 3, "allow"))
                .expect("500ms deny retry=500ms", "600ms deny", "700ms deny", "800ms deny")
                // the log now holds 600, 700 and 800 ms: the attempt at 1 s is recorded too, so the oldest leaves at 1.7 s
                .expect("1000ms deny retry=700ms", "1699ms deny retry=101ms", "1800ms allow");
        Timeline<SlidingLog.State> hammered = Timeline.of(LOG, "3/1s count-rejected").expect(times("0ms", 3, "allow"));
        for (int ms = 100; ms <= 5000; ms += 100) {
            hammered.expect(ms + "ms deny");                       // ten attempts a second: never three free
        }
        hammered.expect("6s allow");                              // after a pause, fewer than three in the last second
        Timeline.of(LOG, "3/1s min-interval 0s")
                .expect(times("0ms", 3, "allow"))
                .expect("500ms deny retry=500ms", "600ms deny", "1000ms allow");
    }

    @Test
    void theLogIsBoundedByTheLimitEvenWhenRejectionsCount() {
        Timeline<SlidingLog.State> t = Timeline.of(LOG, "5/1m count-rejected");
        for (int i = 0; i < 1000; i++) {
            t.apply(Timeline.at("0s") + i * 1000L, 1);
        }
        assertThat(t.state().entries()).hasSize(5);
    }

    @Test
    void costTakesOneEntryPerUnitAndACostAboveTheLimitIsNever() {
        Timeline.of(LOG, "10/1m min-interval 0s")
                .expect("0s cost=7 allow remaining=3", "10s cost=4 deny retry=50s", "10s cost=3 allow remaining=0")
                .expect("20s cost=11 deny retry=never", "20s cost=0 allow remaining=0", "60s cost=7 allow");
    }

    @Test
    void aClockGoingBackwardsCountsAsTheNewestTimeSeen() {
        Timeline.of(LOG, "2/1m min-interval 0s").expect("60s allow", "61s allow", "0s deny retry=120s", "120s allow");
    }

    @Test
    void aMinimumIntervalLongerThanThePeriodStillHolds() {
        Policy policy = Policy.parse("5/1s min-interval 3s");
        Timeline.of(LOG, policy).expect("0s allow", "2s deny retry=1s", "3s allow");
    }
}
