package io.sluice.jaxrs;

import io.sluice.core.time.TimeSource;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A clock that moves only when a test says so. Starts at midnight UTC (windows align), 2023-11-14. */
final class ManualClock implements TimeSource {

    /** 2023-11-14T00:00:00Z in microseconds. */
    static final long START_MICROS = 19_675L * 86_400_000_000L;
    /** {@link #START_MICROS} in epoch seconds. */
    static final long START_SECONDS = START_MICROS / 1_000_000;

    private final AtomicLong now = new AtomicLong(START_MICROS);

    @Override
    public long nowMicros() {
        return now.get();
    }

    ManualClock advance(Duration d) {
        now.addAndGet(d.toNanos() / 1_000);
        return this;
    }
}
