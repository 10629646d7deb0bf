package io.sluice.core.store;

import io.sluice.core.algorithm.Algorithms;
import io.sluice.core.algorithm.Concurrency;
import io.sluice.core.algorithm.PrimitiveSteps;
import io.sluice.core.algorithm.RateAlgorithm;
import io.sluice.core.algorithm.Step;
import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import java.util.Arrays;
import java.util.List;

/**
 * The general path of a {@link MemoryStore}: any algorithm, any number of checks, all or nothing. The cells of a
 * request are locked in ascending id order (a total order: no deadlock), every check is stepped, and only when none
 * is denied (enforced) is what they wrote kept; a denied request keeps only what its algorithms keep on denial.
 */
final class AllOrNothing {

    private AllOrNothing() {}

    static List<Outcome> evaluate(CellCache cache, List<Check> checks, long now, long storeNow) {
        int n = checks.size();
        StateKey[] keys = new StateKey[n];
        for (int i = 0; i < n; i++) {
            keys[i] = new StateKey(checks.get(i).rule(), checks.get(i).key());
        }
        for (int attempt = 1; ; attempt++) {
            Cell[] cells = new Cell[n];
            for (int i = 0; i < n; i++) {
                Check c = checks.get(i);
                if (c.cost() == 0) {
                    // a peek writes nothing (a lease of cost 0 neither): an absent key answers as fresh from a cell of
                    // its own, never inserted
                    Cell found = cache.lookup(keys[i], true);
                    cells[i] = found != null ? found : new Cell(Cell.SCRATCH_ID);
                } else {
                    cells[i] = cache.cell(keys[i], storeNow, true);
                }
            }
            Cell[] order = cells.clone();
            Arrays.sort(order, (a, b) -> Long.compare(a.id, b.id));
            List<Outcome> outcomes = lockAndEvaluate(order, 0, checks, cells, now, storeNow,
                    attempt >= MemoryStore.MAX_ATTEMPTS);
            for (int i = 0; i < n; i++) {
                // emptied by this request (nothing written), or evicted before the locks
                if (cells[i].removed && cells[i].id != Cell.SCRATCH_ID) {
                    cache.remove(keys[i], cells[i]);
                }
            }
            if (outcomes != null) {
                return outcomes;
            }
        }
    }

    /**
     * Locks the cells in ascending id order (a total order: no deadlock), skipping repeats.
     *
     * @param last whether to answer even when a cell has left the cache (it then answers as a fresh key, and what is
     *     written to it is dropped with it); else such a cell makes the caller look again
     * @return the outcomes, or null to look again
     */
    private static List<Outcome> lockAndEvaluate(Cell[] order, int i, List<Check> checks, Cell[] cells, long now,
            long storeNow, boolean last) {
        if (i == order.length) {
            for (Cell c : cells) {
                if (c.removed && !last) {
                    return null;
                }
            }
            List<Outcome> outcomes = evaluateLocked(checks, cells, now, storeNow);
            for (Cell c : cells) {
                if (c.algorithm == null) {
                    c.removed = true;         // nothing was written: a peek or a denial tracks no key
                }
            }
            return outcomes;
        }
        if (i > 0 && order[i] == order[i - 1]) {
            return lockAndEvaluate(order, i + 1, checks, cells, now, storeNow, last);
        }
        order[i].lock();
        try {
            return lockAndEvaluate(order, i + 1, checks, cells, now, storeNow, last);
        } finally {
            order[i].unlock();
        }
    }

    /** Steps every check, then keeps what they wrote: all of it when none is denied (enforced). */
    private static List<Outcome> evaluateLocked(List<Check> checks, Cell[] cells, long now, long storeNow) {
        int n = checks.size();
        Outcome[] outcomes = new Outcome[n];
        Object[] before = new Object[n];
        Object[] after = new Object[n];     // the reference step's new state; or the scratch copy a primitive step wrote
        boolean denied = false;
        for (int i = 0; i < n; i++) {
            denied |= stepLocked(i, checks.get(i), cells[i], outcomes, before, after, now, storeNow);
        }
        for (int i = 0; i < n; i++) {
            keep(checks.get(i), cells[i], outcomes[i], before[i], after[i], denied, now, storeNow);
        }
        return Arrays.asList(outcomes);
    }

    /**
     * Steps check {@code i} on its locked cell, writing nothing to it yet: its outcome, the state it read and the state
     * it would write go to {@code outcomes}, {@code before} and {@code after} at {@code i}.
     *
     * @return whether the check denies, enforced (a shadow check's denial denies nothing)
     */
    private static boolean stepLocked(int i, Check check, Cell cell, Outcome[] outcomes, Object[] before,
            Object[] after, long now, long storeNow) {
        Policy policy = check.policy();
        Algorithm algorithm = policy.algorithm();
        if (PrimitiveSteps.supports(algorithm)) {
            // the primitive step on a copy of the slots, kept until every check has answered (all or nothing)
            boolean fresh = !cell.holds(algorithm, storeNow);
            Cell copy = new Cell(Cell.SCRATCH_ID);
            if (!fresh) {
                copy.copySlots(cell);
            }
            outcomes[i] = PrimitiveSteps.step(algorithm, copy, fresh, at(check, now), check.cost(), policy);
            after[i] = outcomes[i].allowed() && check.cost() > 0 ? copy : null;
        } else {
            before[i] = cell.removed ? null : cell.state(algorithm, storeNow);
            Step<?> step = step(check, before[i], now);
            outcomes[i] = step.outcome();
            after[i] = step.state();
        }
        return !outcomes[i].allowed() && !check.shadow();
    }

    /**
     * Keeps in the locked cell what its check's step wrote, unless the request is {@code denied}; a reference step
     * denied (its own or the request's) keeps what its algorithm keeps on denial.
     */
    private static void keep(Check check, Cell cell, Outcome outcome, Object before, Object after, boolean denied,
            long now, long storeNow) {
        if (after instanceof Cell copy) {       // a primitive step that wrote (only SlidingLog acts on denial)
            if (!denied) {
                cell.copySlots(copy);
                cell.wrotePrimitive(check.policy().algorithm(), at(check, now), storeNow, check.policy());
            }
            return;
        }
        if (PrimitiveSteps.supports(check.policy().algorithm())) {
            return;                                 // a primitive step that wrote nothing
        }
        Object state = !denied && outcome.allowed() ? after : onDenied(check, before, now);
        if (state != before) {
            write(cell, check, state, now, storeNow);
        }
    }

    /** The time a check's algorithm sees: {@code now}, staggered per key for a staggered fixed window. */
    private static long at(Check check, long now) {
        return now + Algorithms.staggerOffsetMicros(check.key(), check.policy());
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Step<?> step(Check check, Object state, long now) {
        Policy policy = check.policy();
        if (policy.algorithm() == Algorithm.CONCURRENCY) {
            return Algorithms.concurrency().acquire((Concurrency.State) state, now, check.cost(), policy, check.leaseId());
        }
        RateAlgorithm algorithm = Algorithms.rate(policy.algorithm());
        return algorithm.step(state, at(check, now), check.cost(), policy);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Object onDenied(Check check, Object state, long now) {
        Policy policy = check.policy();
        if (policy.algorithm() == Algorithm.CONCURRENCY) {
            return state;
        }
        RateAlgorithm algorithm = Algorithms.rate(policy.algorithm());
        return algorithm.onDenied(state, at(check, now), check.cost(), policy);
    }

    /**
     * Stores {@code state} (null: forget), of an algorithm without a primitive twin, in a locked cell with the expiry
     * its algorithm gives it (the primitive algorithms write their slots: {@link Cell#wrotePrimitive}). Also the write
     * of a released lease ({@link MemoryStore#release}).
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static void write(Cell cell, Check check, Object state, long now, long storeNow) {
        if (state == null) {
            cell.clear();
            return;
        }
        Policy policy = check.policy();
        Algorithm algorithm = policy.algorithm();
        long ttl = algorithm == Algorithm.CONCURRENCY
                ? Algorithms.concurrency().ttlMicros((Concurrency.State) state, now, policy)
                : ((RateAlgorithm) Algorithms.rate(algorithm))
                        .ttlMicros(state, at(check, now), policy);
        if (cell.algorithm != algorithm) {
            cell.algorithm = algorithm;       // only on change: see Cell.wrotePrimitive
        }
        cell.state = state;
        cell.expiresAt = storeNow + Math.max(1, ttl);
    }
}
