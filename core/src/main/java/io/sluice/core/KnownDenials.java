package io.sluice.core;

import io.sluice.core.policy.Outcome;
import io.sluice.core.store.Check;
import io.sluice.core.time.TimeSource;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * What this node remembers of denials, to answer them without a store call: the {@link DenialCache} (keys the store
 * denied, until their retry time or until something is admitted on them) and the {@link PenaltyBox} (keys blocked for coming back too soon). Counts the
 * resets, so that neither remembers a denial read from the store before a reset after it. Thread-safe.
 */
final class KnownDenials {

    private final DenialCache cache;        // null: turned off
    private final PenaltyBox penalties;
    /**
     * Counts {@link #forget}s: a decision remembers a denial only if no reset ran since it began, else a denial read
     * from the store before a reset would be remembered after it and undo the reset.
     */
    private final AtomicLong resets = new AtomicLong();

    /** @param cacheSize how many denied keys the denial cache holds; 0 turns it off */
    KnownDenials(int cacheSize, TimeSource time) {
        this.cache = cacheSize > 0 ? new DenialCache(cacheSize, time) : null;
        this.penalties = new PenaltyBox(Math.max(cacheSize, DenialCache.DEFAULT_SIZE), time);
    }

    /** @return the count of resets so far: read before a decision reads anything, and give it back to this class */
    long resets() {
        return resets.get();
    }

    /**
     * Every rule known to deny now, blocked by a penalty or remembered denied, so that the answer's retry time is the
     * longest of them: a client told a shorter one would come back only to be denied (and maybe penalized). A
     * remembered denial repeated before its retry time starts its rule's penalty (a running one is not extended).
     *
     * @param resetsBefore {@link #resets()} when the decision began
     * @return the denial; null when no rule is known to deny
     */
    Decision deny(List<Rule> applied, List<Check> checks, long now, long resetsBefore) {
        Decision blocked = penalties.deny(applied, checks, now);
        Decision cached = cache != null ? cache.deny(applied, checks, now, blocked) : null;
        if (cached != null) {
            cached = penalties.remember(checks, cached, now);
            forgetIfReset(checks, resetsBefore);
        }
        if (blocked == null || cached == null) {
            return blocked == null ? cached : blocked;
        }
        return Decision.of(Stream.concat(blocked.outcomes().stream(), cached.outcomes().stream()).toList(), List.of(),
                now);
    }

    /**
     * Remembers the store's denial of a request: in the denial cache where that is exact, and in the penalty box.
     *
     * @param denied a decision of the store that denies
     * @param resetsBefore {@link #resets()} when the decision began
     * @return the denial, with a penalty as its binding retry-after when one started
     */
    Decision remember(List<Check> checks, Decision denied, long now, long resetsBefore) {
        if (cache != null) {
            cache.remember(checks, denied, now);
        }
        Decision decision = penalties.remember(checks, denied, now);
        forgetIfReset(checks, resetsBefore);
        return decision;
    }

    /**
     * {@link #deny(List, List, long, long)} of one check, without a rule (the programmatic API).
     *
     * @return the denial; null when {@code c} is not known to be denied
     */
    Outcome deny(Check c, long now, long resetsBefore) {
        Outcome blocked = penalties.deny(c, now);
        if (blocked != null) {
            return blocked;
        }
        Outcome cached = cache != null ? cache.deny(c, now) : null;
        if (cached != null) {
            cached = penalties.remember(c, cached, now);
            forgetIfReset(c, resetsBefore);
        }
        return cached;
    }

    /**
     * {@link #remember(List, Decision, long, long)} of one check, without a rule (the programmatic API).
     *
     * @param denied the store's denial of {@code c}
     * @return the denial, with a penalty as its retry-after when one started
     */
    Outcome remember(Check c, Outcome denied, long now, long resetsBefore) {
        if (cache != null) {
            cache.remember(c, denied, now);
        }
        Outcome outcome = penalties.remember(c, denied, now);
        forgetIfReset(c, resetsBefore);
        return outcome;
    }

    /**
     * The store may have changed the state of these checks' keys: it admitted them (or charged a rule that counts by
     * outcome), or a call with them failed and may have run. Their remembered denials are forgotten (their penalties
     * are not: a penalty is this node's, not the store's).
     */
    void changed(List<Check> checks) {
        if (cache != null) {
            for (int i = 0; i < checks.size(); i++) {
                cache.forget(checks.get(i));
            }
        }
    }

    /** {@link #changed(List)} of one check, without a list on the path of the programmatic API. */
    void changed(Check c) {
        if (cache != null) {
            cache.forget(c);
        }
    }

    /**
     * A {@link #forget} ran while a decision was made: what it remembered may come from the state before the reset (a
     * denial the store gave just before), and is forgotten again. A reset counts itself before it forgets, so either
     * this sees it, or its own forgetting comes after what this remembered.
     */
    private void forgetIfReset(List<Check> checks, long resetsBefore) {
        if (resets.get() == resetsBefore) {
            return;
        }
        for (int i = 0; i < checks.size(); i++) {
            Check c = checks.get(i);
            forgetOnly(c.rule(), c.key());
        }
    }

    /** {@link #forgetIfReset(List, long)} of one check, without a list on the path of a hot denied key. */
    private void forgetIfReset(Check c, long resetsBefore) {
        if (resets.get() != resetsBefore) {
            forgetOnly(c.rule(), c.key());
        }
    }

    /** @return the penalty box, for the fleet's messages */
    PenaltyBox penalties() {
        return penalties;
    }

    /** Forgets what is remembered of a key under a rule (admin: reset or unblock). */
    void forget(String rule, String key) {
        resets.incrementAndGet();       // before forgetting: see forgetIfReset
        forgetOnly(rule, key);
    }

    private void forgetOnly(String rule, String key) {
        if (cache != null) {
            cache.forget(rule, key);
        }
        penalties.forget(rule, key);
    }
}
