package io.sluice.core.time;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.List;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

class SystemTimeSourceTest {

    private static final long EPOCH_MICROS = 1_700_000_000_000_000L;

    @Test
    void theDefaultClockReadsTheWallClockTime() {
        long wall = TimeSource.wallClock().nowMicros();
        long system = TimeSource.system().nowMicros();
        long wallAfter = TimeSource.wallClock().nowMicros();
        // anchored to the wall clock at most a second ago: off by the monotonic clock's drift since then at most
        assertThat(system).isBetween(wall - 5_000, wallAfter + 5_000);
    }

    /** Returns the given readings in order, then fails. */
    private static final class Readings implements LongSupplier {
        final ArrayDeque<Long> left;

        Readings(Long... values) {
            left = new ArrayDeque<>(List.of(values));
        }

        @Override
        public long getAsLong() {
            return left.remove();
        }
    }

    @Test
    void theWallTimeIsPairedWithTheMidpointOfTheTwoMonotonicReads() {
        Readings nanos = new Readings(1_000_000L, 1_010_000L);
        SystemTimeSource.Anchor a = SystemTimeSource.anchor(nanos, new Readings(EPOCH_MICROS), null);
        assertThat(a).isEqualTo(new SystemTimeSource.Anchor(EPOCH_MICROS, 1_005_000L));
        assertThat(nanos.left).as("a 10 µs gap is read once").isEmpty();
    }

    @Test
    void aPauseBetweenTheReadsIsReadAgain() {
        // paused 5 ms after the first monotonic read: the wall time belongs to 5 ms later, so the pair is read again
        Readings nanos = new Readings(0L, 5_000_000L, 5_001_000L, 5_003_000L, 99L);
        Readings wall = new Readings(EPOCH_MICROS + 5_000, EPOCH_MICROS + 5_002, 99L);
        assertThat(SystemTimeSource.anchor(nanos, wall, null)).isEqualTo(new SystemTimeSource.Anchor(EPOCH_MICROS + 5_002, 5_002_000L));
        assertThat(nanos.left).containsExactly(99L);
        assertThat(wall.left).containsExactly(99L);
    }

    @Test
    void withoutAPreviousAnchorTheTightestOfABoundedNumberOfPairsIsKept() {
        Long[] nanos = new Long[2 * SystemTimeSource.ANCHOR_TRIES];
        Long[] walls = new Long[SystemTimeSource.ANCHOR_TRIES];
        for (int i = 0; i < SystemTimeSource.ANCHOR_TRIES; i++) {
            long start = i * 1_000_000L;
            long gap = i == 3 ? 30_000 : 100_000;     // every pair too wide; the 4th is the tightest
            nanos[2 * i] = start;
            nanos[2 * i + 1] = start + gap;
            walls[i] = EPOCH_MICROS + i * 1_000L;
        }
        Readings n = new Readings(nanos);
        SystemTimeSource.Anchor a = SystemTimeSource.anchor(n, new Readings(walls), null);
        assertThat(a).isEqualTo(new SystemTimeSource.Anchor(EPOCH_MICROS + 3_000, 3_015_000L));
        assertThat(n.left).as("no more than ANCHOR_TRIES pairs").isEmpty();
    }

    /** A machine whose true time advances 100 ns per clock read; a pause can be scheduled before the next wall read. */
    private static final class Machine {
        long trueNanos = 5_000_000_000L;
        long pauseBeforeNextWallRead;
        long pauseBeforeEveryWallRead;
        long wallStepNanos;
        int wallReads;

        long nanoTime() {
            trueNanos += 100;
            return trueNanos + 123_456_789L;         // the monotonic clock has its own origin
        }

        long wallMicros() {
            trueNanos += pauseBeforeNextWallRead + pauseBeforeEveryWallRead + 100;
            pauseBeforeNextWallRead = 0;
            wallReads++;
            return EPOCH_MICROS + (trueNanos + wallStepNanos) / 1_000;
        }

        long trueMicros(long nanos) {
            return EPOCH_MICROS + nanos / 1_000;
        }
    }

    @Test
    void aPauseWhileAnchoringDoesNotOffsetTheTimeAndReAnchorsStepByMicrosecondsAtMost() {
        Machine m = new Machine();
        m.pauseBeforeNextWallRead = 50_000_000;         // a 50 ms pause inside the very first anchor
        SystemTimeSource clock = new SystemTimeSource(m::nanoTime, m::wallMicros);
        long previous = Long.MIN_VALUE;
        for (int i = 0; i < 1_000; i++) {
            m.trueNanos += 7_000_000;                   // 7 s in all: several re-anchors
            m.pauseBeforeNextWallRead = 50_000_000;     // and a 50 ms pause inside each of them
            long readAt = m.trueNanos + 100;            // the true time of the call's first monotonic read
            long now = clock.nowMicros();
            assertThat(now).as("call %d", i).isBetween(m.trueMicros(readAt) - 2, m.trueMicros(readAt) + 2);
            assertThat(now).as("never backwards here: the wall clock does not step").isGreaterThanOrEqualTo(previous);
            previous = now;
        }
        assertThat(m.wallReads).as("the clock was re-anchored, each time reading the paused pair again")
                .isGreaterThanOrEqualTo(2 * 7);
    }

    @Test
    void aReAnchorWithoutATightPairRunsOnFromThePreviousAnchorExactly() {
        Machine m = new Machine();
        SystemTimeSource clock = new SystemTimeSource(m::nanoTime, m::wallMicros);
        m.pauseBeforeEveryWallRead = 5_000_000;         // overloaded: every wall read comes 5 ms late
        long previous = Long.MIN_VALUE;
        for (int i = 0; i < 1_000; i++) {
            m.trueNanos += 7_000_000;
            long readAt = m.trueNanos + 100;
            long now = clock.nowMicros();
            // a loose pair would lead by half the pause (2.5 ms); running on from the first anchor, no error at all
            assertThat(now).as("call %d", i).isBetween(m.trueMicros(readAt) - 2, m.trueMicros(readAt) + 2);
            assertThat(now).isGreaterThanOrEqualTo(previous);
            previous = now;
        }
        assertThat(m.wallReads).as("each re-anchor tried every pair").isGreaterThanOrEqualTo(6 * SystemTimeSource.ANCHOR_TRIES);

        m.pauseBeforeEveryWallRead = 0;                 // the load is gone, and the wall clock has stepped 3 ms ahead
        m.wallStepNanos = 3_000_000;
        m.trueNanos += 1_000_000_000L;
        long readAt = m.trueNanos + 100;
        assertThat(clock.nowMicros()).as("the next re-anchor pairs tightly and follows the wall clock again")
                .isBetween(m.trueMicros(readAt) + 3_000 - 2, m.trueMicros(readAt) + 3_000 + 2);
    }
}
