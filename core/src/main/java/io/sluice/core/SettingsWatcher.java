package io.sluice.core;

import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Keeps this node's {@link Operations} up to date with settings other nodes change: reads them when the fleet says
 * they changed ({@link #changed()}), and checks their version at a fixed interval in case a message was missed. One
 * daemon thread, {@code sluice-shared-settings}; only for a store whose settings are shared. The reads an engine needs
 * before its first answer (the settings in the store when it starts, the rules document once a front door reads them)
 * run on it too, so that no caller waits on a store that does not answer: the first answers wait for them
 * ({@link #awaitReads}), within the store's timeout.
 */
final class SettingsWatcher implements AutoCloseable {

    /** The default interval of the version check: {@value} ms. */
    static final long DEFAULT_INTERVAL_MILLIS = 1_000;

    private final Operations operations;
    private final ScheduledExecutorService thread;

    /** @param interval between two version checks; zero: none, messages only */
    SettingsWatcher(Operations operations, Duration interval) {
        this.operations = operations;
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sluice-shared-settings");
            t.setDaemon(true);
            return t;
        });
        long micros = interval.toNanos() / 1000;
        if (micros > 0) {
            thread.scheduleWithFixedDelay(operations::refreshLogged, micros, micros, TimeUnit.MICROSECONDS);
        }
    }

    /** Another node changed the settings, or this one needs them: read them now, on the watcher's thread. */
    void changed() {
        try {
            thread.execute(operations::refreshLogged);
        } catch (RejectedExecutionException closed) {
            // closed: nothing to keep up to date
        }
    }

    /**
     * Waits for the reads asked for so far ({@link #changed()}), at most {@code max}; at once once closed.
     *
     * @return whether they are done
     */
    boolean awaitReads(Duration max) {
        try {
            thread.submit(() -> { }).get(max.toNanos(), TimeUnit.NANOSECONDS);    // after them, on one thread
            return true;
        } catch (RejectedExecutionException | ExecutionException | TimeoutException | CancellationException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Stops the thread and waits for it to end ({@link Threads#stop}): a read in flight is interrupted, and ends within
     * the store's timeout when the store does not heed interrupts.
     */
    @Override
    public void close() {
        Threads.stop(thread, "sluice-shared-settings");
    }
}
