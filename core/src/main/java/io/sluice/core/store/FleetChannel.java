package io.sluice.core.store;

import java.time.Duration;
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
     * Starts delivering the messages of every node to {@code listener}, on a thread of the channel's own, until the
     * returned handle is closed or {@link #close()}; reconnects after a failure. Several listeners may listen (engines
     * that share one store, such as a servlet filter's and JAX-RS's); each hears every message. Never waits for the
     * store: an engine calls it while it is built, which must not wait on a store that does not answer
     * ({@link #awaitListening} is where its first answers wait).
     *
     * @return closing it removes this listener, and no other, without closing the channel: no message is delivered to
     *     it after {@link Listening#close()} returns, save one being delivered at that moment on the channel's thread.
     *     Closing it again does nothing. A channel whose last listener is removed may keep its subscription (its
     *     connection and thread) until {@link #close()}, and start delivering again when another listens.
     */
    Listening listen(Consumer<FleetMessage> listener);

    /**
     * Waits while the channel's first attempt to listen is under way, at most {@code max}. An engine's first answers
     * wait so, so that a node whose store answers hears every message sent after it first answered. A channel waits
     * only while that attempt is under way: it returns at once once it listens, and once its first attempt failed (it
     * goes on trying on its own), and on a store that does not answer it waits no longer than a call to it takes (its
     * timeout). The default, for a channel that listens at once: returns true.
     *
     * @return whether it listens now
     */
    default boolean awaitListening(Duration max) {
        return true;
    }

    /**
     * Stops listening: every listener is removed, and the channel's thread and connection end before it returns (an
     * attempt to connect that cannot be cut short, within the store's timeout).
     */
    @Override
    void close();

    /** One listener's place on a channel ({@link #listen}); {@link #close()} removes it. */
    @FunctionalInterface
    interface Listening extends AutoCloseable {

        /** Removes the listener; idempotent; never throws. The channel stays open. */
        @Override
        void close();
    }
}
