package io.sluice.core.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Waits for something another thread or process does (a fleet message applied, a job processed, a lease released):
 * the condition is looked at every few milliseconds until it holds, and the test fails, naming what it waited for,
 * when it does not within the bound. A bound, not a sleep: a fast machine goes on at once.
 */
public final class Await {

    private static final long PAUSE_NANOS = 2_000_000;

    private Await() {}

    /**
     * @param what names the condition in the failure, such as {@code "the override applied on node B"}
     * @param within the longest wait
     */
    public static void until(String what, Duration within, BooleanSupplier condition) {
        long deadline = System.nanoTime() + within.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as(what + " within " + within).isNegative();
            LockSupport.parkNanos(PAUSE_NANOS);
        }
    }
}
