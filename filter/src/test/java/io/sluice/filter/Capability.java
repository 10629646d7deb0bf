package io.sluice.filter;

/**
 * One capability of {@link FaultMatrixIT}, as an application uses it, on a Redis a {@link Fault} strikes: built on the
 * Redis's URL (Jetty and the filter, and what else it needs: a queue, a second node), whether Redis is up or not.
 * {@link FaultMatrixIT} arranges it, runs its {@link #load()} through the fault, waits until it works exactly again
 * and has it say what held.
 */
interface Capability extends AutoCloseable {

    /** Builds a capability on a Redis: the application starts, Redis up or not. */
    @FunctionalInterface
    interface Opening {
        Capability open(FaultyRedis redis) throws Exception;
    }

    /** What held through a fault, for the report. */
    record Held(long deniedByRule, String details) {}

    /**
     * Sets up, with Redis up, what the fault must not undo (settings, queued jobs): before the fault, or once Redis
     * answers after a start without it. Asserts that it is in force.
     */
    void arrange() throws Exception;

    /** @return traffic of its kind, started: it runs through the fault until closed */
    HttpLoad load();

    /**
     * While the fault lasts (for a fault that fails every call until healed: {@link Fault#failsEveryCall()}): asserts
     * how it answers meanwhile.
     */
    default void duringFault() {}

    /** Waits (bounded) until it works exactly again after {@code fault}: its limits exact, its jobs done. */
    void awaitRecovered(Fault fault) throws Exception;

    /**
     * Asserts what held through {@code fault}, once {@code load} (closed) has run through it.
     *
     * @param healStartMillis when the heal began (epoch ms): what Redis held before it, it held before the fault
     * @return the 503s the load got from rules that deny while the store fails (the only 5xx allowed) and details
     */
    Held verify(Fault fault, HttpLoad load, long healStartMillis) throws Exception;
}
