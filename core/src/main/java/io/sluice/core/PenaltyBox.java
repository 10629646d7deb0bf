package io.sluice.core;

import io.sluice.core.policy.Policy;
import io.sluice.core.policy.Outcome;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import io.sluice.core.store.Check;
import io.sluice.core.time.TimeSource;
import java.util.ArrayList;
import java.util.List;

/**
 * The penalty of policies with {@code penalty}: a key that comes back while it is denied — before the retry-after it
 * was told — is blocked for the penalty on this node, without asking the store. One denial is a client that did not
 * know; a request during the wait is a client that does not listen.
 *
 * <p>Bounded (Caffeine, the same size as the denial cache) and per node: each node of a fleet penalizes the requests
 * it sees. While blocked, a request does not extend the block, so a client that honours {@code Retry-After} gets back
 * in after the penalty.
 */
final class PenaltyBox {

    /** What the box knows of a key: told to wait until {@code retryUntil}, or blocked until {@code blockedUntil}. */
    private record Entry(long retryUntil, long blockedUntil, long limit) {
        long expiresAt() {
            return Math.max(retryUntil, blockedUntil);
        }
    }

    private record Key(String rule, String key) {}

    private final Cache<Key, Entry> cache;
    /** Told of every block this box starts (the fleet hears of it): rule, key and the block's end. */
    private volatile Started started = (rule, key, until) -> { };

    /** A block this box started. */
    interface Started {
        void started(String rule, String key, long untilMicros);
    }

    PenaltyBox(int size, TimeSource time) {
        this.cache = Caffeine.newBuilder()
                .maximumSize(size)
                .ticker(() -> time.nowMicros() * 1_000)
                .executor(Runnable::run)
                .expireAfter(new Expiry<Key, Entry>() {
                    @Override
                    public long expireAfterCreate(Key k, Entry e, long currentTime) {
                        return Math.max(0, e.expiresAt() - time.nowMicros()) * 1_000;
                    }

                    @Override
                    public long expireAfterUpdate(Key k, Entry e, long currentTime, long currentDuration) {
                        return expireAfterCreate(k, e, currentTime);
                    }

                    @Override
                    public long expireAfterRead(Key k, Entry e, long currentTime, long currentDuration) {
                        return currentDuration;
                    }
                })
                .build();
    }

    /**
     * @return a denial with every enforced check whose key is blocked now, bound by the longest block; null when none
     *     is
     */
    Decision deny(List<Rule> rules, List<Check> checks, long now) {
        List<RuleOutcome> blocked = null;
        for (int i = 0; i < checks.size(); i++) {
            Check c = checks.get(i);
            Outcome o = deny(c, now);
            if (o != null) {
                if (blocked == null) {
                    blocked = new ArrayList<>(2);
                }
                blocked.add(new RuleOutcome(rules.get(i), c.policy(), o, RuleOutcome.Source.STORE));
            }
        }
        return blocked == null ? null : Decision.of(blocked, List.of(), now);
    }

    /**
     * One check, without a rule (the programmatic API).
     *
     * @return the denial of {@code c} when its key is blocked now; null when it is not
     */
    Outcome deny(Check c, long now) {
        if (c.shadow() || c.policy().penaltyMicros() == 0) {
            return null;
        }
        Entry e = cache.getIfPresent(new Key(c.rule(), c.key()));
        if (e == null || e.blockedUntil() <= now) {
            return null;
        }
        long wait = e.blockedUntil() - now;
        return Outcome.deny(c.policy().limit(), 0, wait, wait);
    }

    /**
     * Records the denied enforced checks of a decision: a key denied again before its previous retry time is blocked
     * for the penalty.
     *
     * @return the decision, with the penalty as the binding retry-after when one started
     */
    Decision remember(List<Check> checks, Decision decision, long now) {
        List<RuleOutcome> outcomes = new ArrayList<>(decision.outcomes());
        boolean changed = false;
        for (int i = 0; i < outcomes.size(); i++) {
            RuleOutcome r = outcomes.get(i);
            Check c = r.policy().penaltyMicros() == 0 || r.outcome().allowed() ? null : checkOf(checks, r.rule().name());
            if (c == null) {
                continue;
            }
            Outcome o = remember(c, r.outcome(), now);
            if (o != r.outcome()) {
                outcomes.set(i, new RuleOutcome(r.rule(), r.policy(), o, r.source()));
                changed = true;
            }
        }
        return changed ? Decision.of(outcomes, decision.leases(), decision.atMicros()) : decision;
    }

    /**
     * Records one check's outcome, that of a rule or of the programmatic API: a denial of its key before its previous
     * retry time blocks it for the penalty.
     *
     * @return {@code o}, or the denial with the penalty as its retry-after when one started
     */
    Outcome remember(Check c, Outcome o, long now) {
        long penalty = c.policy().penaltyMicros();
        if (penalty == 0 || c.shadow() || o.allowed()) {
            return o;
        }
        boolean[] penalized = new boolean[1];
        // one atomic step per key: two denials of one key at once must not each read the entry and then overwrite
        // the other's (a running block replaced by a plain retry time)
        cache.asMap().compute(new Key(c.rule(), c.key()), (k, before) -> {
            if (before != null && before.retryUntil() > now) {
                penalized[0] = true;
                return new Entry(before.retryUntil(), now + penalty, o.limit());
            }
            if (o.never()) {
                return before;
            }
            return new Entry(now + Math.min(o.retryAfterMicros(), Policy.MAX_EXACT_MICROS),
                    before != null ? before.blockedUntil() : 0, o.limit());      // a running block stays
        });
        if (!penalized[0]) {
            return o;
        }
        started.started(c.rule(), c.key(), now + penalty);
        return Outcome.deny(o.limit(), 0, Math.max(o.resetAfterMicros(), penalty), Math.max(o.retryAfterMicros(), penalty));
    }

    /** @param listener told of every block this box starts from now on */
    void onStarted(Started listener) {
        this.started = listener;
    }

    /**
     * Blocks a key until {@code untilMicros} because another node did (it came back too soon there): a running
     * block ends no sooner.
     */
    void impose(String rule, String key, long untilMicros) {
        cache.asMap().compute(new Key(rule, key), (k, before) -> before == null
                ? new Entry(0, untilMicros, 0)
                : new Entry(before.retryUntil(), Math.max(before.blockedUntil(), untilMicros), before.limit()));
    }

    private static Check checkOf(List<Check> checks, String rule) {
        for (Check c : checks) {
            if (c.rule().equals(rule)) {
                return c;
            }
        }
        return null;
    }

    void forget(String rule, String key) {
        cache.invalidate(new Key(rule, key));
    }

    long size() {
        cache.cleanUp();
        return cache.estimatedSize();
    }
}
