package io.sluice.core;

import io.sluice.core.algorithm.DeniedKey;
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
 * <p>Exact: a denial answered here is the store's answer, field for field (decision, remaining, reset-after,
 * retry-after, never), for a request of any cost. A denial consumes nothing, so until a request is admitted on the key
 * its state is the one the store denied from; {@link DeniedKey} gives the store's answer from what the denial said of
 * it, and answers nothing it cannot give exactly (a request the store would admit, a cost the sliding window or log
 * cannot tell, a time before the denial's). What could change that state here forgets the key: a request admitted on
 * it, a store call whose result is unknown, a charge of a rule that counts by outcome, a reset. It does not apply to
 * concurrency (a release frees a slot at any time), to a sliding log that counts rejected attempts (each attempt must
 * be recorded), to shadow rules, or to queueing policies.
 *
 * <p>A request of several rules is answered here only when each of its enforced rules is known to deny it (or is
 * blocked by a penalty): a rule not known could deny with a longer wait, which the store's answer would state. Nor
 * is one that a sliding log counting rejected attempts takes part in, shadow or not: the store records the attempt.
 *
 * <p>What this node does not see it cannot account for: a request admitted on another node, or on another thread of
 * this one while the denial was on its way back, can only make the store's answer later than the remembered one.
 */
final class DenialCache {

    /** Default number of denied keys remembered: {@value}. */
    static final int DEFAULT_SIZE = 10_000;

    private final Cache<Key, DeniedKey> cache;

    DenialCache(int size, TimeSource time) {
        this.cache = Caffeine.newBuilder()
                .maximumSize(size)
                .ticker(() -> time.nowMicros() * 1_000)
                .executor(Runnable::run)
                .expireAfter(new Expiry<Key, DeniedKey>() {
                    @Override
                    public long expireAfterCreate(Key k, DeniedKey d, long currentTime) {
                        return Math.max(0, d.untilMicros() - time.nowMicros()) * 1_000;
                    }

                    @Override
                    public long expireAfterUpdate(Key k, DeniedKey d, long currentTime, long currentDuration) {
                        return expireAfterCreate(k, d, currentTime);
                    }

                    @Override
                    public long expireAfterRead(Key k, DeniedKey d, long currentTime, long currentDuration) {
                        return currentDuration;
                    }
                })
                .build();
    }

    /**
     * @param blocked the denials the penalty box gave for this request (null: none); their rules are not looked up
     * @return a denial built from memory when every enforced check not in {@code blocked} is known denied now, with
     *     each such check's outcome (so the binding one is the longest wait of them); null when one is not, or when
     *     none is left to look up
     */
    Decision deny(List<Rule> rules, List<Check> checks, long now, Decision blocked) {
        if (cache.estimatedSize() == 0) {
            return null;        // nothing denied is remembered: no lookup (and no key object) per request
        }
        List<RuleOutcome> denied = null;
        for (int i = 0; i < checks.size(); i++) {
            Check c = checks.get(i);
            if (c.policy().settings().recordsDenials()) {
                return null;    // the store records the attempt, even a shadow rule's, even denied by another rule
            }
            if (c.shadow() || (blocked != null && names(blocked, c.rule()))) {
                continue;
            }
            Outcome o = rules.get(i).denialCache() ? deny(c, now) : null;
            if (o == null) {
                return null;    // the store's answer could differ: this rule could deny with a longer wait
            }
            if (denied == null) {
                denied = new ArrayList<>(2);
            }
            denied.add(new RuleOutcome(rules.get(i), c.policy(), o, RuleOutcome.Source.STORE));
        }
        return denied == null ? null : Decision.of(denied, List.of(), now);
    }

    /**
     * One check, without a rule (the programmatic API).
     *
     * @return the store's denial of {@code c} now, when it is known; null when it is not
     */
    Outcome deny(Check c, long now) {
        if (!applies(c) || cache.estimatedSize() == 0) {
            return null;
        }
        DeniedKey d = cache.getIfPresent(new Key(c.rule(), c.key()));
        if (d == null || !c.policy().equals(d.policy())) {
            return null;
        }
        return d.deny(c.cost(), now);
    }

    private static boolean names(Decision decision, String rule) {
        for (RuleOutcome o : decision.outcomes()) {
            if (o.rule().name().equals(rule)) {
                return true;
            }
        }
        return false;
    }

    /**
     * After a store call that denied the request: remembers the enforced checks it denied, where that is exact, and
     * forgets the others (one that counts by outcome may have been charged).
     */
    void remember(List<Check> checks, Decision decision, long now) {
        for (int i = 0; i < checks.size(); i++) {
            RuleOutcome r = decision.outcomes().get(i);
            if (r.rule().denialCache()) {
                remember(checks.get(i), r.outcome(), now);
            } else {
                forget(checks.get(i));
            }
        }
    }

    /**
     * Remembers one check the store denied, where that is exact, the check of a rule or of the programmatic API; else
     * forgets what was remembered of its key.
     */
    void remember(Check c, Outcome o, long now) {
        DeniedKey d = !o.allowed() && applies(c) && o.retryAfterMicros() < Policy.MAX_EXACT_MICROS
                ? DeniedKey.of(c.key(), c.policy(), c.cost(), o, now) : null;
        if (d != null) {
            cache.put(new Key(c.rule(), c.key()), d);
        } else {
            forget(c);
        }
    }

    /** Forgets the key of a check whose state the store may have changed (admitted, charged, or unknown). */
    void forget(Check c) {
        if (cache.estimatedSize() != 0) {
            cache.invalidate(new Key(c.rule(), c.key()));
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
}
