package io.sluice.core.time;

import java.time.Clock;
import java.time.Instant;

/** The wall clock read on every call through {@link Clock#systemUTC()} (microsecond resolution on Linux). */
enum WallClockTimeSource implements TimeSource {
    INSTANCE;

    private static final Clock CLOCK = Clock.systemUTC();

    @Override
    public long nowMicros() {
        Instant now = CLOCK.instant();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }
}
