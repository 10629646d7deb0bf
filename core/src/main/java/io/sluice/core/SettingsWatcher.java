package io.sluice.core;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Keeps this node's {@link Operations} up to date with settings other nodes change: reads them when the fleet says
 * they changed ({@link #changed()}), and checks their version at a fixed interval in case a message was missed. One
 * daemon thread, {@code sluice-shared-settings}; only for a store whose settings are shared.
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

    /** Another node changed the settings: read them now, on the watcher's thread. */
    void changed() {
        if (!thread.isShutdown()) {
            thread.execute(operations::refreshLogged);
        }
    }

    @Override
    public void close() {
        thread.shutdownNow();
    }
}
