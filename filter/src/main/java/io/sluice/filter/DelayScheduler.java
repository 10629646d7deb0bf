package io.sluice.filter;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs a task after a delay: how a queued request is resumed. No request thread waits; one scheduler thread per filter
 * only dispatches. Tests use a scheduler driven by their manual clock.
 */
interface DelayScheduler extends AutoCloseable {

    /** Runs {@code task} once, {@code delayMicros} from now. */
    void schedule(Runnable task, long delayMicros);

    /** Stops the scheduler: the tasks not run yet run now, and a task scheduled later runs at once. */
    @Override
    void close();

    /**
     * A scheduler on one daemon thread named {@code sluice-queue}. Closed, it stops its thread, runs the tasks still
     * waiting on the closing thread (a queued request is answered early rather than never: it would wait for its
     * async timeout) and waits (at most a second) for the thread to end; it runs at once a task scheduled after (a
     * request that was on its way when the filter was destroyed). Each task runs once.
     */
    static DelayScheduler threaded() {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "sluice-queue");
            t.setDaemon(true);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        Set<Runnable> pending = ConcurrentHashMap.newKeySet();
        return new DelayScheduler() {
            @Override
            public void schedule(Runnable task, long delayMicros) {
                AtomicBoolean ran = new AtomicBoolean();
                Runnable once = new Runnable() {
                    @Override
                    public void run() {
                        if (ran.compareAndSet(false, true)) {
                            pending.remove(this);
                            task.run();
                        }
                    }
                };
                pending.add(once);              // before it is scheduled: close() finds it if the executor drops it
                try {
                    executor.schedule(once, delayMicros, TimeUnit.MICROSECONDS);
                } catch (RejectedExecutionException closed) {
                    once.run();                 // closed meanwhile: at once, as close() ran the others
                }
            }

            @Override
            public void close() {
                executor.shutdownNow();         // first: a task scheduled from now on is rejected, and runs at once
                for (Runnable task : pending) {
                    try {
                        task.run();
                    } catch (RuntimeException e) {      // one request's failure must not leave the others waiting
                        System.getLogger(DelayScheduler.class.getName()).log(System.Logger.Level.WARNING,
                                "a queued request could not be answered at shutdown", e);
                    }
                }
                try {       // its thread done before close returns: a container looks for threads left behind then
                    executor.awaitTermination(1, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
    }

    /** Runs every task at once: the scheduler of a filter destroyed before it needed a thread. */
    static DelayScheduler immediate() {
        return new DelayScheduler() {
            @Override
            public void schedule(Runnable task, long delayMicros) {
                task.run();
            }

            @Override
            public void close() {}
        };
    }
}
