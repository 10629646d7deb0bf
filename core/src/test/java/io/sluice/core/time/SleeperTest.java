package io.sluice.core.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.testing.ManualTimeSource;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class SleeperTest {

    @Test
    void aClockThatIsItsOwnSleeperWaitsItsOwnWay() {
        ManualTimeSource manual = new ManualTimeSource();
        assertThat(Sleeper.of(manual)).isSameAs(manual);
        assertThat(Sleeper.of(TimeSource.system())).isInstanceOf(ParkingSleeper.class);
        assertThatThrownBy(() -> Sleeper.of(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theParkingSleeperReturnsAtOnceForADeadlinePassedAndOnAnUnparkOrAnInterrupt() {
        long[] now = {1_000_000};
        Sleeper sleeper = Sleeper.of(() -> now[0]);
        sleeper.parkUntil(now[0]);           // passed: returns without parking
        sleeper.parkUntil(0);

        LockSupport.unpark(Thread.currentThread());
        sleeper.parkUntil(Sleeper.NO_DEADLINE);     // the unpark came first: returns

        Thread.currentThread().interrupt();
        sleeper.parkUntil(Sleeper.NO_DEADLINE);
        sleeper.parkUntil(now[0] + 60_000_000);
        assertThat(Thread.interrupted()).as("the interrupt status is left set").isTrue();
    }

    @Test
    void theParkingSleeperParksForTheTimeLeftByItsClock() {
        TimeSource clock = TimeSource.system();
        Sleeper sleeper = Sleeper.of(clock);
        long deadline = clock.nowMicros() + 2_000;
        long start = System.nanoTime();
        while (clock.nowMicros() < deadline) {
            sleeper.parkUntil(deadline);
        }
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }
}
