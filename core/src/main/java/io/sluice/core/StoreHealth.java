package io.sluice.core;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Whether the engine's store answers, and while it does not, which rules answer by which failure mode
 * ({@link Rule#onStoreFailure()}): unlimited ({@code allow}), refusing with a 503 ({@code deny}), or limited to this
 * node's share ({@code local}). The one account that the engine's log lines, the admin endpoint's status, the metrics
 * and a health check all read: {@link Engine#health()}.
 *
 * <p>The store is failing from the moment the circuit breaker around it opens (after
 * {@link io.sluice.core.store.CircuitBreaker#DEFAULT_FAILURE_THRESHOLD} consecutive failures by default: Redis
 * unreachable, down since start-up, timing out, or refusing its script) until a call succeeds again. A single failed
 * call in between is answered by the failure modes too, and counted, but the store is not failing for it.
 *
 * @param up whether the store answers: its circuit breaker is closed
 * @param failingSinceMicros while the store fails, when it began (the breaker opened; epoch µs on the engine's clock);
 *     -1 while it is up
 * @param failing while the store fails, the names of the rules answering by each failure mode: the rules in force
 *     when it began, in their order, then each rule (a JAX-RS annotation's) and each named limit of the programmatic
 *     API answered by its failure mode since (at most {@value #MAX_NAMES} names in all); every mode present, its list
 *     possibly empty. Empty while the store is up
 * @param outageDecisions while the store fails, the decisions answered by failure modes since it began (requests, and
 *     calls of the programmatic API); 0 while it is up
 * @param failureModeDecisions the decisions answered by failure modes since the engine was built: those of every
 *     outage, and those of single failed calls
 */
public record StoreHealth(boolean up, long failingSinceMicros, Map<Rule.FailureMode, List<String>> failing,
        long outageDecisions, long failureModeDecisions) {

    /** The most rules and limits named while the store fails: {@value}. Others are counted, not named. */
    public static final int MAX_NAMES = 1_000;

    public StoreHealth {
        failing = Map.copyOf(failing);
    }

    /** @return the health of a store that answers, after {@code failureModeDecisions} answered by failure modes */
    static StoreHealth whenUp(long failureModeDecisions) {
        return new StoreHealth(true, -1, Map.of(), 0, failureModeDecisions);
    }

    /** @return the health of a failing store, every mode present in {@code failing}, each mode's names in order */
    static StoreHealth whenFailing(long sinceMicros, Map<Rule.FailureMode, List<String>> failing, long outageDecisions,
            long failureModeDecisions) {
        Map<Rule.FailureMode, List<String>> all = new EnumMap<>(Rule.FailureMode.class);
        for (Rule.FailureMode mode : Rule.FailureMode.values()) {
            all.put(mode, List.copyOf(failing.getOrDefault(mode, List.of())));
        }
        return new StoreHealth(false, sinceMicros, all, outageDecisions, failureModeDecisions);
    }

    /** @return the names of the rules (and named limits) answering by {@code mode} now; empty while the store is up */
    public List<String> failing(Rule.FailureMode mode) {
        return failing.getOrDefault(mode, List.of());
    }

    /**
     * @return whether the store fails and some rule (or named limit) refuses because of it ({@code deny}: 503 for each
     *     of its requests)
     */
    public boolean refusing() {
        return !failing(Rule.FailureMode.DENY).isEmpty();
    }
}
