package io.sluice.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LogThrottleTest {

    @Test
    void theFirstLinePassesThenOnePerIntervalWithTheCountHeldBack() {
        LogThrottle lines = new LogThrottle(60_000_000);

        assertThat(lines.pass(1_000)).isEqualTo(new LogThrottle.Pass(0, -1));
        assertThat(lines.pass(2_000)).isNull();
        assertThat(lines.pass(60_000_999)).as("just inside the interval").isNull();
        assertThat(lines.pass(61_000_000)).isEqualTo(new LogThrottle.Pass(2, 60_999_000));
        assertThat(lines.pass(121_000_000)).isEqualTo(new LogThrottle.Pass(0, 60_000_000));
    }

    @Test
    void aClockSetBackByMoreThanTheIntervalLetsALineThroughRatherThanHoldingEveryLineUntilItCatchesUp() {
        LogThrottle lines = new LogThrottle(60_000_000);

        assertThat(lines.pass(10_000_000_000L)).isNotNull();
        assertThat(lines.pass(10_000_000_000L - 5)).as("read a moment earlier by another thread").isNull();
        assertThat(lines.pass(10_000_000_000L - 3_600_000_000L)).as("the wall clock stepped back an hour")
                .isEqualTo(new LogThrottle.Pass(1, -1));
        assertThat(lines.pass(10_000_000_000L - 3_600_000_000L + 1_000)).isNull();
    }
}
