package io.sluice.core.store;

import java.util.function.Consumer;

/**
 * Messages among the nodes that share a store (Redis pub/sub): penalties and resets reach every node within about a
 * second, so a ban on one node holds on all and an unblock on one lifts it on all. Best effort: a message sent while
 * the store is unreachable is lost (a penalty then holds on the node that imposed it; a reset still cleared the
 * store's state). {@link Store#fleet()} gives a store's.
 */
public interface FleetChannel extends AutoCloseable {

    /** Sends {@code message} to every node listening; never throws (a failure is logged). */
    void publish(FleetMessage message);

    /**
     * Starts delivering the messages of every node to {@code listener}, on a thread of the channel's own, until
     * {@link #close()}; reconnects after a failure. Several listeners may listen (engines that share one store, such
     * as a servlet filter's and JAX-RS's); each hears every message.
     */
    void listen(Consumer<FleetMessage> listener);

    /** Stops listening. */
    @Override
    void close();
}
