package io.sluice.core;

import io.sluice.core.store.Lease;
import java.util.List;

/**
 * The engine's answer for one request. Denial is a value, never an exception.
 *
 * @param allowed whether the request may proceed (after {@link #delayMicros()} when queued)
 * @param outcomes every rule that took part, in rule order; a denial answered from memory (the denial cache, a
 *     penalty) holds the rules known to deny
 * @param binding the rule whose numbers go into the headers: the enforced rule that denied with the longest wait,
 *     else the rule with the least remaining (of two with as much, the one that resets later), a rule that fails open
 *     while the store is unavailable only when no other enforced rule has numbers; null when no rule applied
 * @param delayMicros queue mode: how long to hold the request before it proceeds, the longest wait of the enforced
 *     rules that queue it; 0 otherwise. A shadow rule never holds a request: what it would have made it wait is
 *     {@link #shadowDelayMicros()}
 * @param leases concurrency leases to release when the response completes
 * @param atMicros when the engine decided, by its clock (epoch microseconds): the instant the outcomes' times count
 *     from, so the base of a response's epoch values ({@code X-RateLimit-Reset}, the envelope's {@code renewal}),
 *     however long after the decision the response is written; 0 for {@link #NO_RULES}
 */
public record Decision(boolean allowed, List<RuleOutcome> outcomes, RuleOutcome binding, long delayMicros,
        List<Lease> leases, long atMicros) {

    /** The decision for a request no rule applies to. */
    public static final Decision NO_RULES = new Decision(true, List.of(), null, 0, List.of(), 0);

    public Decision {
        outcomes = List.copyOf(outcomes);
        leases = List.copyOf(leases);
    }

    /**
     * Builds a decision from the outcomes of one request: derives allowed, binding and delay. The delay is that of the
     * enforced rules only: a shadow rule counts and reports, and never changes what happens to the request, so its
     * queue (its outcome's {@link io.sluice.core.policy.Outcome#delayMicros()}) holds nobody; see {@link #shadowDelayMicros()}.
     *
     * @param atMicros when the outcomes were decided (epoch microseconds): see {@link #atMicros()}
     */
    public static Decision of(List<RuleOutcome> outcomes, List<Lease> leases, long atMicros) {
        if (outcomes.isEmpty()) {
            return NO_RULES;
        }
        boolean allowed = true;
        long delay = 0;
        RuleOutcome binding = null;
        int n = outcomes.size();
        for (int i = 0; i < n; i++) {
            RuleOutcome o = outcomes.get(i);
            allowed &= !o.denies();
            if (!o.rule().shadow() && o.outcome().allowed()) {
                delay = Math.max(delay, o.outcome().delayMicros());
            }
        }
        for (int i = 0; i < n; i++) {
            RuleOutcome o = outcomes.get(i);
            if (binding == null || binds(o, binding, allowed)) {
                binding = o;
            }
        }
        return new Decision(allowed, outcomes, binding, allowed ? delay : 0, allowed ? leases : List.of(), atMicros);
    }

    private static boolean binds(RuleOutcome candidate, RuleOutcome current, boolean allowed) {
        if (!allowed) {
            if (candidate.denies() != current.denies()) {
                return candidate.denies();
            }
            return candidate.denies() && candidate.outcome().retryAfterMicros() > current.outcome().retryAfterMicros();
        }
        if (candidate.rule().shadow() != current.rule().shadow()) {
            return !candidate.rule().shadow();     // enforced rules speak first
        }
        boolean madeUp = candidate.source() == RuleOutcome.Source.FAILURE_ALLOWED;
        if (madeUp != (current.source() == RuleOutcome.Source.FAILURE_ALLOWED)) {
            return !madeUp;     // a rule that fails open has no numbers to state: one that has them speaks first
        }
        long remaining = candidate.outcome().remaining();
        long than = current.outcome().remaining();
        // the rule with the least room; of two with the same room, the one whose room comes back later
        return remaining < than || (remaining == than
                && candidate.outcome().resetAfterMicros() > current.outcome().resetAfterMicros());
    }

    /** @return whether a shadow rule would have denied this request */
    public boolean shadowDenied() {
        for (int i = 0; i < outcomes.size(); i++) {
            RuleOutcome o = outcomes.get(i);
            if (o.rule().shadow() && !o.outcome().allowed()) {
                return true;
            }
        }
        return false;
    }

    /**
     * @return the longest a shadow rule in queue mode ({@code max-wait}) would have held this request, had it been
     *     enforced; 0 when none would have. The request is not held for it: {@link #delayMicros()} is that of the
     *     enforced rules only. A shadow rule that would have refused it (a wait above {@code max-wait}) is
     *     {@link #shadowDenied()} instead.
     */
    public long shadowDelayMicros() {
        long longest = 0;
        for (int i = 0; i < outcomes.size(); i++) {
            RuleOutcome o = outcomes.get(i);
            if (o.rule().shadow() && o.outcome().allowed()) {
                longest = Math.max(longest, o.outcome().delayMicros());
            }
        }
        return longest;
    }

    /** @return whether the request is denied because the store failed and a rule denies meanwhile (answer 503) */
    public boolean storeUnavailable() {
        return !allowed && binding != null && binding.source() == RuleOutcome.Source.FAILURE_DENIED;
    }

    /** @return retry-after of the binding rule in microseconds; 0 when allowed */
    public long retryAfterMicros() {
        return allowed || binding == null ? 0 : binding.outcome().retryAfterMicros();
    }
}
