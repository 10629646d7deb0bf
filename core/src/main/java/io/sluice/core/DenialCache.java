package io.sluice.core;

import io.sluice.core.policy.Algorithm;
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
 * Remembers keys the store denied until their retry time, and denies them again without a store call: a client
 * hammering while blocked costs no Redis round trip. Bounded (default {@value #DEFAULT_SIZE} keys); entries expire at
 * their retry time.
 *
 * <p>Exact because, for the algorithms it applies to, other traffic can only push a denied key's retry time later,
 * never earlier: a request of at least the denied cost cannot pass before it. It does not apply to concurrency (a
 * release frees a slot at any time), to a sliding log that counts rejected attempts (each attempt must be recorded),
 * to shadow rules, or to queueing policies.
 *
 * <p>A remembered denial says the store's remaining again, so that one state gets one answer: for a request of cost
 * 1 that stays what the store says until the retry time (the first unit to come back is the one the retry waits for);
 * for a larger cost it is what the store said at the denial, though units may come back before the retry time.
 */
final class DenialCache {

    /** Default number of denied keys remembered: {@value}. */
    static final int DEFAULT_SIZE = 10_000;

    private final Cache<Key, Denial> cache;
    private final TimeSource time;

    DenialCache(int size, TimeSource time) {
        this.time = time;
        this.cache = Caffeine.newBuilder()
                .maximumSize(size)
                .ticker(() -> time.nowMicros() * 1_000)
                .executor(Runnable::run)
                .expireAfter(new Expiry<Key, Denial>() {
                    @Override
                    public long expireAfterCreate(Key k, Denial d, long currentTime) {
                        return Math.max(0, d.untilMicros - time.nowMicros()) * 1_000;
                    }

                    @Override
                    public long expireAfterUpdate(Key k, Denial d, long currentTime, long currentDuration) {
                        return expireAfterCreate(k, d, currentTime);
                    }

                    @Override
                    public long expireAfterRead(Key k, Denial d, long currentTime, long currentDuration) {
                        return currentDuration;
                    }
                })
                .build();
    }

    /**
     * @param blocked the denials the penalty box gave for this request (null: none); their rules are not looked up
     * @return a denial built from memory when any enforced check is known denied now, with every such check's outcome
     *     (so the binding one is the longest wait of them), {@code blocked}'s not among them; null when none is
     */
    Decision deny(List<Rule> rules, List<Check> checks, long now, Decision blocked) {
        if (cache.estimatedSize() == 0) {
            return null;        // nothing denied is remembered: no lookup (and no key object) per request
        }
        List<RuleOutcome> denied = null;
        for (int i = 0; i < checks.size(); i++) {
            Check c = checks.get(i);
            if (!rules.get(i).denialCache() || (blocked != null && names(blocked, c.rule()))) {
                continue;
            }
            Outcome o = deny(c, now);
            if (o != null) {
                if (denied == null) {
                    denied = new ArrayList<>(2);
                }
                denied.add(new RuleOutcome(rules.get(i), c.policy(), o, RuleOutcome.Source.STORE));
            }
        }
        return denied == null ? null : Decision.of(denied, List.of(), now);
    }

    /**
     * One check, without a rule (the programmatic API).
     *
     * @return the remembered denial of {@code c} when it is known denied now; null when it is not
     */
    Outcome deny(Check c, long now) {
        if (!applies(c) || cache.estimatedSize() == 0) {
            return null;
        }
        Denial d = cache.getIfPresent(new Key(c.rule(), c.key()));
        if (d == null || now >= d.untilMicros || c.cost() < d.cost || !c.policy().equals(d.policy)) {
            return null;
        }
        long retry = d.untilMicros - now;
        return Outcome.deny(d.limit, d.remaining, Math.max(retry, d.resetUntilMicros - now), retry);
    }

    private static boolean names(Decision decision, String rule) {
        for (RuleOutcome o : decision.outcomes()) {
            if (o.rule().name().equals(rule)) {
                return true;
            }
        }
        return false;
    }

    /** Remembers the enforced checks a store denied, where that is exact. */
    void remember(List<Check> checks, Decision decision, long now) {
        for (int i = 0; i < checks.size(); i++) {
            RuleOutcome r = decision.outcomes().get(i);
            if (r.rule().denialCache()) {
                remember(checks.get(i), r.outcome(), now);
            }
        }
    }

    /** Remembers one check the store denied, where that is exact: the check of a rule or of the programmatic API. */
    void remember(Check c, Outcome o, long now) {
        if (!o.allowed() && applies(c) && !o.never() && o.retryAfterMicros() < Policy.MAX_EXACT_MICROS) {
            cache.put(new Key(c.rule(), c.key()), new Denial(now + o.retryAfterMicros(),
                    now + Math.max(o.resetAfterMicros(), o.retryAfterMicros()), c.cost(), o.limit(), o.remaining(),
                    c.policy()));
        }
    }

    void forget(String rule, String key) {
        cache.invalidate(new Key(rule, key));
    }

    private static boolean applies(Check c) {
        Policy p = c.policy();
        return !c.shadow() && p.algorithm() != Algorithm.CONCURRENCY && !p.settings().recordsDenials() && !p.queues();
    }

    private record Key(String rule, String key) {}

    /** @param remaining the store's remaining at the denial, which the remembered denial says again */
    private record Denial(long untilMicros, long resetUntilMicros, long cost, long limit, long remaining,
            Policy policy) {}
}
