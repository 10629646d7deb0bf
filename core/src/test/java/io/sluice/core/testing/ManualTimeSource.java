package io.sluice.core.testing;

import io.sluice.core.time.TimeSource;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A time source that moves only when a test says so. Starts at a whole day since the epoch (windows align). */
public final class ManualTimeSource implements TimeSource {

    /** 2023-11-14T00:00:00Z in microseconds: a whole number of days, so every window boundary falls on it. */
    public static final long START_MICROS = 19_675L * 86_400_000_000L;

    private final AtomicLong now = new AtomicLong(START_MICROS);

    @Override
    public long nowMicros() {
        return now.get();
    }

    public ManualTimeSource advance(Duration d) {
        now.addAndGet(d.toNanos() / 1_000);
        return this;
    }

    public ManualTimeSource advanceMicros(long micros) {
        now.addAndGet(micros);
        return this;
    }

    public ManualTimeSource set(long epochMicros) {
        now.set(epochMicros);
        return this;
    }
}
