package io.sluice.filter;

import java.lang.System.Logger.Level;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/** {@link DelayScheduler#threaded()}: a scheduler on one daemon thread named {@code sluice-queue}. */
final class ThreadedScheduler implements DelayScheduler {

    private final ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
        Thread t = new Thread(r, "sluice-queue");
        t.setDaemon(true);
        return t;
    });
    private final Set<Runnable> pending = ConcurrentHashMap.newKeySet();

    ThreadedScheduler() {
        executor.setRemoveOnCancelPolicy(true);
    }

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
                System.getLogger(DelayScheduler.class.getName()).log(Level.WARNING,
                        "a queued request could not be answered at shutdown", e);
            }
        }
        try {       // its thread done before close returns: a container looks for threads left behind then
            executor.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
