package io.sluice.core;

import io.sluice.core.request.RequestView;

/**
 * Sees every decision of {@link Engine#check}: for logging, metrics, alerting or audit. Called on the request thread
 * after the decision, so keep it fast; an exception it throws is logged and otherwise ignored. The programmatic
 * {@link Engine#tryAcquire(String, String, io.sluice.core.policy.Policy, long)} (and {@link Limiter}, {@link KeyLimiter}) answers an
 * {@link io.sluice.core.policy.Outcome} and calls no listener.
 */
@FunctionalInterface
public interface DecisionListener {

    /**
     * @param request the request
     * @param decision what the engine decided
     * @param event what kind of decision this was
     */
    void onDecision(RequestView request, Decision decision, Event event);

    /**
     * The rules in force changed: a {@code io.sluice.http.FrontDoor} loaded a changed rules file. Called once per
     * reload that loaded rules, on the thread that reloaded, after the new rules are in force; a decision made under
     * the previous rules may still reach {@link #onDecision} just after. An {@link Engine} built with its own rules
     * never calls it. An exception it throws is logged and otherwise ignored. Default: nothing.
     *
     * @param before the rules in force until now
     * @param after the rules in force from now on
     */
    default void onRulesChanged(java.util.List<Rule> before, java.util.List<Rule> after) {}

    /** The kinds of decision a listener sees. */
    enum Event {
        /**
         * Allowed by the store, at once or after {@link Decision#delayMicros()} (queue mode). A shadow queue that would
         * have delayed the request (and only delayed it) is reported so too: it passed as if the rule were not there,
         * and {@link Decision#shadowDelayMicros()} says how long it would have waited.
         */
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
