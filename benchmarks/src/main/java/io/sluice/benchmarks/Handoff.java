package io.sluice.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The floor of a caller that waits for its answer (issue 31), with no Redis and no work: each call is queued to one
 * worker thread, which answers whatever waits, all at once, and wakes each caller; the caller parks until then. Its
 * client CPU per decision is what one park and one wake cost this machine, which every design that blocks a request's
 * thread until a batch returns pays once per decision, whatever it saves on the calls themselves.
 */
final class Handoff implements AutoCloseable {

    private final LinkedBlockingQueue<Waiter> queue = new LinkedBlockingQueue<>();
    private final Thread worker = new Thread(this::work, "handoff");
    private volatile boolean running = true;

    Handoff() {
        worker.setDaemon(true);
        worker.start();
    }

    /** Queues one call and waits for the worker's answer. */
    void call() {
        Waiter w = new Waiter();
        queue.add(w);
        while (!w.done) {
            LockSupport.park(this);
        }
    }

    private void work() {
        List<Waiter> batch = new ArrayList<>();
        while (running) {
            try {
                Waiter first = queue.poll(10, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                queue.drainTo(batch);
                for (Waiter w : batch) {
                    w.done = true;
                    LockSupport.unpark(w.owner);
                }
                batch.clear();
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    @Override
    public void close() {
        running = false;
    }

    private static final class Waiter {
        final Thread owner = Thread.currentThread();
        volatile boolean done;
    }
}
