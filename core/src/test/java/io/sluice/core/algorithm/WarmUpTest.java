package io.sluice.core.algorithm;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class WarmUpTest {

    private static final WarmUp WARM_UP = new WarmUp();

    @Test
    void aColdLimiterStartsAtTheColdIntervalAndRampsToTheStableOne() {
        Policy policy = Policy.parse("10/1s warm-up 2s");          // stable 100 ms, cold 300 ms
        List<Long> gaps = gapsWhenAlwaysRetryingAsSoonAsAllowed(policy, 40);
        assertThat(gaps.get(0)).as("first gap, cold").isBetween(280_000L, 300_000L);
        assertThat(gaps.get(gaps.size() - 1)).as("last gap, warm").isEqualTo(100_000L);
        for (int i = 1; i < gaps.size(); i++) {
            assertThat(gaps.get(i)).as("gap %d never longer than the one before", i).isLessThanOrEqualTo(gaps.get(i - 1));
        }
    }

    @Test
    void theDocumentedRampsGapForGap() {
        // Javadoc: 10/1s warm-up 2s, from cold 290 ms apart, 20 ms closer each time, 100 ms apart after 2 s
        List<Long> fast = gapsWhenAlwaysRetryingAsSoonAsAllowed(Policy.parse("10/1s warm-up 2s"), 16);
        assertThat(fast).containsExactly(290_000L, 270_000L, 250_000L, 230_000L, 210_000L, 190_000L, 170_000L, 150_000L,
                130_000L, 110_000L, 100_000L, 100_000L, 100_000L, 100_000L, 100_000L);
        // docs/demo.md, the demo's 5/1s warm-up 10s: 592 ms, then each gap 16 ms shorter, 200 ms after 10 s of steady use
        List<Long> demo = gapsWhenAlwaysRetryingAsSoonAsAllowed(Policy.parse("5/1s warm-up 10s"), 30);
        for (int i = 0; i < 25; i++) {
            assertThat(demo.get(i)).as("gap %d", i).isEqualTo(592_000L - 16_000L * i);
        }
        assertThat(demo.subList(0, 25).stream().mapToLong(Long::longValue).sum()).isEqualTo(10_000_000L);
        assertThat(demo.subList(25, demo.size())).containsOnly(200_000L);
    }

    @Test
    void anIdleLimiterCoolsDownAgain() {
        Policy policy = Policy.parse("10/1s warm-up 2s");
        Timeline<WarmUp.State> t = Timeline.of(WARM_UP, policy);
        long now = Timeline.at("0s");
        for (int i = 0; i < 40; i++) {                            // warm it up
            Outcome o = t.apply(now, 1);
            now += o.allowed() ? 100_000 : o.retryAfterMicros();
        }
        long ttl = WARM_UP.ttlMicros(t.state(), now, policy);
        assertThat(ttl).as("fully cold again after the warm-up period, roughly").isBetween(1_900_000L, 2_300_000L);
        Outcome first = t.apply(now + ttl, 1);
        Outcome second = t.apply(now + ttl, 1);
        assertThat(first.allowed()).isTrue();
        assertThat(second.retryAfterMicros()).as("cold interval again").isBetween(280_000L, 300_000L);
    }

    @Test
    void costAboveTheLimitIsNeverAndCostZeroPeeks() {
        Timeline.of(WARM_UP, "2/1s warm-up 1s")
                .expect("0s cost=3 deny retry=never", "0s cost=0 allow remaining=1", "0s cost=2 allow remaining=0")
                .expect("0s cost=0 allow", "0s cost=1 deny");
    }

    @Test
    void aClockGoingBackwardsMintsNothing() {
        Timeline.of(WARM_UP, "10/1s warm-up 1s").expect("10s allow", "9s deny", "10s deny");
    }

    /** At the highest rate a warm-up policy may have, one permit per microsecond, a warm limiter still spaces them. */
    @Test
    void atOnePermitPerMicrosecondAWarmLimiterAdmitsOnePerMicrosecond() {
        Policy policy = Policy.parse("1000000/1s warm-up 1s");
        Timeline<WarmUp.State> t = Timeline.of(WARM_UP, policy);
        long now = Timeline.at("0s");
        while (now < Timeline.at("3s")) {                      // always retrying as soon as allowed, for 3 s: warm
            Outcome o = t.apply(now, 1);
            now += o.allowed() ? 0 : o.retryAfterMicros();
        }
        int admitted = 0;
        for (int i = 0; i < 1_000; i++) {
            admitted += t.apply(now, 1).allowed() ? 1 : 0;
        }
        assertThat(admitted).as("requests admitted at one microsecond").isLessThanOrEqualTo(1);
    }

    private static List<Long> gapsWhenAlwaysRetryingAsSoonAsAllowed(Policy policy, int requests) {
        Timeline<WarmUp.State> t = Timeline.of(WARM_UP, policy);
        long now = Timeline.at("0s");
        long last = now;
        List<Long> gaps = new ArrayList<>();
        int allowed = 0;
        while (allowed < requests) {
            Outcome o = t.apply(now, 1);
            if (o.allowed()) {
                if (allowed++ > 0) {
                    gaps.add(now - last);
                }
                last = now;
            } else {
                now += o.retryAfterMicros();
            }
        }
        return gaps;
    }
}
