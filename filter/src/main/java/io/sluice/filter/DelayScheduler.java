package io.sluice.filter;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Runs a task after a delay: how a queued request is resumed. No request thread waits; one scheduler thread per filter
 * only dispatches. Tests use a scheduler driven by their manual clock.
 */
interface DelayScheduler extends AutoCloseable {

    /** Runs {@code task} once, {@code delayMicros} from now. */
    void schedule(Runnable task, long delayMicros);

    @Override
    void close();

    /** A scheduler on one daemon thread named {@code sluice-queue}. */
    static DelayScheduler threaded() {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "sluice-queue");
            t.setDaemon(true);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        ScheduledExecutorService service = executor;
        return new DelayScheduler() {
            @Override
            public void schedule(Runnable task, long delayMicros) {
                service.schedule(task, delayMicros, TimeUnit.MICROSECONDS);
            }

            @Override
            public void close() {
                service.shutdownNow();
            }
        };
    }
}
