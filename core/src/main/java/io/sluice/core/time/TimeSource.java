package io.sluice.core.time;

/**
 * Where "now" comes from: epoch microseconds. The only type in Sluice that reads the system clock;
 * algorithms receive {@code nowMicros} as an argument and stores read a time source once per request.
 */
@FunctionalInterface
public interface TimeSource {

    /** @return the current time in microseconds since the epoch */
    long nowMicros();

    /** @return the system clock, with microsecond resolution where the platform offers it */
    static TimeSource system() {
        return SystemTimeSource.INSTANCE;
    }
}
