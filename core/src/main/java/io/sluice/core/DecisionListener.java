package io.sluice.core;

/**
 * Sees every decision the engine makes: for logging, metrics, alerting or audit. Called on the request thread after
 * the decision, so keep it fast; an exception it throws is logged and otherwise ignored.
 */
@FunctionalInterface
public interface DecisionListener {

    /**
     * @param request the request (null for the programmatic {@code tryAcquire})
     * @param decision what the engine decided
     * @param event what kind of decision this was
     */
    void onDecision(RequestView request, Decision decision, Event event);

    /** The kinds of decision a listener sees. */
    enum Event {
        /** Allowed by the store. */
        ALLOWED,
        /** Denied by the store (429). */
        DENIED,
        /** Denied from the local cache of denied keys, without a store call (429). */
        DENIED_FROM_CACHE,
        /** Allowed, but a shadow rule would have denied. */
        SHADOW_DENIED,
        /** The store failed or the circuit is open; each rule's failure mode answered. */
        STORE_FAILURE
    }
}
