package io.sluice.core.time;

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
}
