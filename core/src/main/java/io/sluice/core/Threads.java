package io.sluice.core;

import java.lang.System.Logger.Level;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * How the engine stops the threads it started ({@code sluice-shared-settings}, {@code sluice-leased-permits}): they are
 * interrupted, and waited for, so that a container undeploying the application finds none of them left. A thread in a
 * store call that does not heed interrupts (a socket read) ends when the call does, within the store's timeout: the
 * wait is bounded by {@value #STOP_MILLIS} ms, longer than any usual timeout, and a thread still running after it is
 * logged.
 */
final class Threads {

    /** The longest {@link #stop} waits: {@value} ms. */
    static final long STOP_MILLIS = 5_000;

    private static final System.Logger LOG = System.getLogger(Engine.class.getName());

    private Threads() {}

    /**
     * Interrupts the threads of {@code executor} and waits for them to end, at most {@value #STOP_MILLIS} ms.
     *
     * @param name the threads' name, for the log
     * @return whether they ended
     */
    static boolean stop(ExecutorService executor, String name) {
        executor.shutdownNow();
        try {
            if (executor.awaitTermination(STOP_MILLIS, TimeUnit.MILLISECONDS)) {
                return true;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        LOG.log(Level.WARNING, "Sluice: thread " + name + " is still in a store call " + STOP_MILLIS + " ms after it"
                + " was stopped; it ends when the call times out");
        return false;
    }
}
