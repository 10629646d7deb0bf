package io.sluice.core.time;

import java.util.concurrent.locks.LockSupport;

/** The sleeper of a real clock: {@link LockSupport#parkNanos(Object, long)} for the time left until the deadline. */
final class ParkingSleeper implements Sleeper {

    private final TimeSource time;

    ParkingSleeper(TimeSource time) {
        this.time = time;
    }

    @Override
    public void parkUntil(long deadlineMicros) {
        if (deadlineMicros == NO_DEADLINE) {
            LockSupport.park(this);
            return;
        }
        long now = time.nowMicros();
        if (deadlineMicros <= now) {
            return;
        }
        long micros = deadlineMicros - now;     // positive; overflows only when now is negative and the deadline huge
        LockSupport.parkNanos(this, micros < 0 || micros > Long.MAX_VALUE / 1_000 ? Long.MAX_VALUE : micros * 1_000);
    }

    @Override
    public String toString() {
        return "Sleeper.of(" + time + ")";
    }
}
