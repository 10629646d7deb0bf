package io.sluice.core;

import io.sluice.core.policy.Outcome;
import io.sluice.core.request.RequestView;
import io.sluice.core.store.Check;
import io.sluice.core.store.Store;
import io.sluice.core.time.TimeSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Counting by outcome ({@link Rule#countStatuses()}): such a rule is looked at when a request is checked, without
 * consuming, and charged when its response is complete, only for the statuses it counts. Checked before and charged
 * after, it can be passed by requests that are in flight together before any is charged: the limit then holds within
 * the number in flight.
 */
final class OutcomeCounting {

    private final StoreGuard guard;
    private final TimeSource time;
    private final KnownDenials denials;

    OutcomeCounting(StoreGuard guard, TimeSource time, KnownDenials denials) {
        this.guard = guard;
        this.time = time;
        this.denials = denials;
    }

    /** @return whether a rule of {@code applied} counts by outcome */
    static boolean any(List<Rule> applied) {
        for (int i = 0; i < applied.size(); i++) {
            if (applied.get(i).countsByOutcome()) {
                return true;
            }
        }
        return false;
    }

    /**
     * One store call for all checks, unless a rule counts by outcome. Such a rule is charged when its response is
     * complete, not now, so its key is first looked at without consuming (cost 0). Then:
     * <ul>
     *   <li>each counted rule has room for the request's cost: one call asks the other rules at their cost (the
     *       counted ones at cost 0 again); none, when every rule counts by outcome;</li>
     *   <li>a counted rule has no room: one call asks each such rule at its cost (it denies, consuming nothing, and
     *       says when to retry) and every other rule at cost 0, so a denied attempt consumes from no other rule, even
     *       across the slots of a Redis Cluster, and a sliding log counting rejected attempts does not count it.</li>
     * </ul>
     *
     * <p>Should room appear at such a rule between the look and the call (the store's clock rolled its window over, or
     * its key was reset), its check passes and has consumed: {@code chargedAtCheck} marks it, so that {@link #charge}
     * does not take its cost a second time, and the other rules are then asked at their cost in one more call. If one
     * of them denies, the counted rule keeps that charge: the one case in which a denied request consumes.
     *
     * @param target the store asked: the configured one, or the local fallback while that one fails
     * @param applied the rules of the checks, read only when {@code chargedAtCheck} is not null
     * @param chargedAtCheck null when no rule counts by outcome; else one flag per check, set here
     */
    static List<Outcome> evaluate(Store target, TimeSource time, List<Rule> applied, List<Check> checks, long now,
            boolean[] chargedAtCheck) {
        if (chargedAtCheck == null) {
            return target.evaluate(checks, now, time);
        }
        int n = checks.size();
        boolean[] others = new boolean[n];      // the rules that do not count by outcome
        List<Check> peeks = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            others[i] = !applied.get(i).countsByOutcome();
            if (!others[i]) {
                peeks.add(checks.get(i).withCost(0));
            }
        }
        List<Outcome> seen = target.evaluate(peeks, now, time);
        boolean[] noRoom = new boolean[n];      // the counted rules without room for the request's cost
        boolean anyOther = false;
        boolean anyNoRoom = false;
        for (int i = 0, k = 0; i < n; i++) {
            if (!others[i]) {
                noRoom[i] = seen.get(k++).remaining() < checks.get(i).cost();
                anyNoRoom |= noRoom[i];
            }
            anyOther |= others[i];
        }
        if (!anyNoRoom) {
            return anyOther ? target.evaluate(atCost(checks, others), now, time) : seen;
        }
        return withoutRoom(target, time, checks, now, noRoom, anyOther ? others : null, chargedAtCheck);
    }

    /**
     * A counted rule had no room at its look: each such rule is asked at its cost, every other at 0; then, if none
     * denied, the others at their cost.
     *
     * @param others the rules that do not count by outcome; null when there are none
     */
    private static List<Outcome> withoutRoom(Store target, TimeSource time, List<Check> checks, long now,
            boolean[] noRoom, boolean[] others, boolean[] chargedAtCheck) {
        int n = checks.size();
        List<Outcome> first = target.evaluate(atCost(checks, noRoom), now, time);
        boolean denied = false;
        for (int i = 0; i < n; i++) {
            denied |= !first.get(i).allowed() && !checks.get(i).shadow();
        }
        for (int i = 0; i < n; i++) {
            chargedAtCheck[i] = noRoom[i] && first.get(i).allowed() && !denied;
        }
        if (denied || others == null) {
            return first;
        }
        List<Outcome> second = target.evaluate(atCost(checks, others), now, time);
        Outcome[] out = new Outcome[n];
        for (int i = 0; i < n; i++) {
            out[i] = others[i] ? second.get(i) : first.get(i);
        }
        return Arrays.asList(out);
    }

    /** @return {@code checks}, those not marked in {@code charged} at cost 0 */
    private static List<Check> atCost(List<Check> checks, boolean[] charged) {
        List<Check> asked = new ArrayList<>(checks.size());
        for (int i = 0; i < checks.size(); i++) {
            asked.add(charged[i] ? checks.get(i) : checks.get(i).withCost(0));
        }
        return asked;
    }

    /**
     * Charges the rules of {@code decision} that count responses with {@code status}: see
     * {@link Engine#charge(RequestView, Decision, int)}.
     */
    void charge(RequestView request, Decision decision, int status) {
        if (!decision.allowed()) {
            return;             // a denied attempt is not counted (it never reached the application)
        }
        List<Check> charges = new ArrayList<>(1);
        List<Check> localCharges = List.of();
        for (RuleOutcome o : decision.outcomes()) {
            Check c = chargeOf(request, o, status);
            if (c == null) {
                continue;
            }
            if (o.source() == RuleOutcome.Source.LOCAL_FALLBACK) {
                // checked in the local fallback (with this node's share as its policy): charged there too, where the
                // next check while the store is down looks
                localCharges = localCharges.isEmpty() ? new ArrayList<>(1) : localCharges;
                localCharges.add(c);
            } else {
                charges.add(c);
            }
        }
        guard.charge(charges, localCharges, time.nowMicros());
        denials.changed(charges);       // charged: a denial remembered of such a key no longer holds
    }

    /** @return the charge of one rule's part in a decision; null when it takes none for {@code status} */
    private static Check chargeOf(RequestView request, RuleOutcome o, int status) {
        Rule rule = o.rule();
        if (!rule.countsByOutcome() || !rule.countStatuses().contains(status) || !o.outcome().allowed()
                || o.chargedAtCheck()) {
            return null;
        }
        String key = rule.countedKey(request);
        if (key == null) {
            return null;
        }
        return new Check(rule.name(), key, o.policy(), rule.cost(), rule.shadow(), null);
    }
}
