package io.sluice.core.testing;

import java.util.concurrent.Executor;
import java.util.concurrent.Executors;

/** Threads for tests that hold a task (in a store call, in a parse) while the test acts on another thread. */
public final class TestThreads {

    /**
     * A cached pool of daemon threads: the common pool may have a single thread, which a held task would take. Idle
     * threads end after a minute and never keep the JVM alive.
     */
    public static final Executor OWN = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "test-own");
        t.setDaemon(true);
        return t;
    });

    private TestThreads() {}
}
