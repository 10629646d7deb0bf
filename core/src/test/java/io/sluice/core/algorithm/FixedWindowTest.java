package io.sluice.core.algorithm;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.policy.Policy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FixedWindowTest {

    private static final FixedWindow FIXED = new FixedWindow();
    private static final String LIMIT = "fixed-window";

    @Test
    void fiveHundredPerHourAdmitsFiveHundredThenWaitsForTheNextHour() {
        Timeline<FixedWindow.State> t = Timeline.of(FIXED, fixed("500/1h"));
        t.expect("0ms allow remaining=499 reset=1h");
        for (int i = 1; i < 499; i++) {
            t.expect(i + "s allow");
        }
        t.expect("30m allow remaining=0 reset=30m", "30m deny retry=30m", "59m deny retry=1m", "1h allow remaining=499");
    }

    @Test
    void tenPerMinuteResetsOnTheMinute() {
        Timeline.of(FIXED, fixed("10/1m"))
                .expect(times("0s", 10, "allow"))
                .expect("10s deny remaining=0 retry=50s reset=50s", "59s deny retry=1s", "60s allow remaining=9");
    }

    @Test
    void edgeBurstAdmitsTwiceTheLimitAcrossABoundary() {
        Timeline.of(FIXED, fixed("10/1m"))
                .expect(times("50s", 10, "allow"))
                .expect("55s deny")
                .expect(times("60s", 10, "allow"))
                .expect("61s deny retry=59s");
    }

    @Test
    void theJavadocExampleTheEleventhAtTwelveFiftyWaitsTenSeconds() {
        Timeline.of(FIXED, fixed("10/1m"))
                .expect(times("50s", 10, "allow"))
                .expect("50s deny remaining=0 retry=10s")
                .expect(times("60s", 10, "allow"));
    }

    @Test
    void costCountsAndACostAboveTheLimitIsNever() {
        Timeline.of(FIXED, fixed("10/1m"))
                .expect("0s cost=4 allow remaining=6", "1s cost=7 deny remaining=6 retry=59s", "1s cost=6 allow remaining=0")
                .expect("2s cost=11 deny retry=never", "2s cost=0 allow remaining=0 reset=58s");
    }

    @Test
    void costZeroPeeksWithoutConsuming() {
        Timeline.of(FIXED, fixed("1/1m")).expect("0s cost=0 allow remaining=1 reset=0ms", "0s cost=0 allow remaining=1",
                "0s allow remaining=0", "1s cost=0 allow remaining=0 reset=59s");
    }

    @Test
    void aClockThatGoesBackwardsKeepsCountingInTheNewestWindow() {
        Timeline.of(FIXED, fixed("2/1m"))
                .expect("60s allow", "60s allow", "59s deny retry=61s", "30s deny", "120s allow");
    }

    @Test
    void staggeredWindowsAreOffsetPerKeyWithinThePeriod() {
        Policy staggered = Policy.parse("10/1m staggered").withAlgorithm(io.sluice.core.policy.Algorithm.FIXED_WINDOW);
        Set<Long> offsets = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            long offset = Algorithms.staggerOffsetMicros("client-" + i, staggered);
            assertThat(offset).isBetween(0L, staggered.periodMicros() - 1);
            assertThat(Algorithms.staggerOffsetMicros("client-" + i, staggered)).as("stable").isEqualTo(offset);
            offsets.add(offset);
        }
        assertThat(offsets).as("clients reset at different instants").hasSizeGreaterThan(90);
        assertThat(Algorithms.staggerOffsetMicros("client-1", fixed("10/1m"))).as("off unless staggered").isZero();
    }

    @Test
    void stateExpiresWithItsWindow() {
        Timeline<FixedWindow.State> t = Timeline.of(FIXED, fixed("10/1m")).expect("15s allow");
        assertThat(FIXED.ttlMicros(t.state(), Timeline.at("15s"), fixed("10/1m"))).isEqualTo(45_000_000L);
    }

    static Policy fixed(String notation) {
        return Policy.parse(notation).withAlgorithm(io.sluice.core.policy.Algorithm.FIXED_WINDOW);
    }

    /** {@code n} events at the same time. */
    static String[] times(String at, int n, String verdict) {
        List<String> events = new ArrayList<>(Collections.nCopies(n, at + " " + verdict));
        return events.toArray(String[]::new);
    }
}
