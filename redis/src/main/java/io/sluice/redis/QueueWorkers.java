package io.sluice.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** The workers an {@link AdmissionQueue} started and still runs: started, forgotten once ended, stopped on close. */
final class QueueWorkers {

    private final List<QueueWorker> workers = new CopyOnWriteArrayList<>();

    /** Starts {@code worker}, counting it among the running. */
    void start(QueueWorker worker) {
        workers.add(worker);
        worker.start();
    }

    /** Forgets a worker whose thread ends. */
    void forget(QueueWorker worker) {
        workers.remove(worker);
    }

    /**
     * Stops every worker, within one {@code grace} for all of them (then interrupts those still in a handler): each
     * stops reading first, so that none takes a new entry while another is waited for.
     */
    void close(Duration grace) {
        for (QueueWorker w : workers) {
            w.stopReading();
        }
        long deadline = System.nanoTime() + grace.toNanos();      // one grace for all, not one each
        for (QueueWorker w : workers) {
            w.close(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        }
    }
}
