package io.sluice.filter;

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
        return new ThreadedScheduler();
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
