package io.sluice.core.time;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SystemTimeSourceTest {

    @Test
    void theDefaultClockReadsTheWallClockTime() {
        long wall = TimeSource.wallClock().nowMicros();
        long system = TimeSource.system().nowMicros();
        long wallAfter = TimeSource.wallClock().nowMicros();
        // anchored to the wall clock at most a second ago: off by the monotonic clock's drift since then at most
        assertThat(system).isBetween(wall - 5_000, wallAfter + 5_000);
    }

    @Test
    void betweenAnchorsTheDefaultClockNeverGoesBackwards() {
        long previous = TimeSource.system().nowMicros();
        for (int i = 0; i < 100_000; i++) {
            long now = TimeSource.system().nowMicros();
            // a re-anchor (once a second) may step by the drift since the last one: microseconds, never more
            assertThat(now).isGreaterThanOrEqualTo(previous - 1_000);
            previous = now;
        }
    }
}
