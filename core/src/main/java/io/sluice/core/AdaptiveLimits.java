package io.sluice.core;

import io.sluice.core.algorithm.AdaptiveLimit;
import io.sluice.core.policy.AdaptiveConcurrencySettings;
import io.sluice.core.policy.ConcurrencySettings;
import io.sluice.core.policy.Policy;
import io.sluice.core.request.RequestView;
import io.sluice.core.store.Check;
import io.sluice.core.store.Lease;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The adaptive concurrency limits of this node ({@link io.sluice.core.policy.Algorithm#ADAPTIVE_CONCURRENCY}): one
 * {@link AdaptiveLimit} per (rule, key), learning from the requests this node admitted, and the concurrency check each
 * request of such a rule makes in the store in its place. Thread-safe.
 *
 * <p><b>Per node, always.</b> The limit measures the latency of this node's requests, so it is this node's, held here
 * in the engine whatever the store. Its leases are ordinary concurrency leases ({@code n concurrent}, of the limit that
 * applies now) taken in the request's one store call with its other rules, released as every lease is
 * ({@link Engine#release(Decision, int)}) and expiring as every lease does. On a store of this node alone (memory) the
 * key is the rule's; on a shared store (Redis) it is made this node's ({@code key@node-<id>}), so that the fleet's
 * store counts this node's requests against this node's limit, and no other's.
 *
 * <p><b>Critical requests are shed last.</b> A request the application marks critical, with the request attribute
 * {@value #CRITICAL_ATTRIBUTE} set to {@code true} (a {@code Boolean} or the string) before Sluice sees the request,
 * is refused only at the limit; any other once the weight in flight reaches the limit less the policy's
 * {@code reserve} ({@code limit * (100 - reserve) / 100}). An attribute rather than a header: a client can send any
 * header, but only code of the application can set an attribute, so no client can promote itself. A share rather than
 * a queue or a priority: it needs nothing but the limit, and costs little, as the limit grows until latency rises
 * whatever share the other requests may use.
 *
 * <p>Samples: the time from the decision ({@link Decision#atMicros()}, less a queue's delay) to
 * {@link Engine#release(Decision, int)} on the engine's clock, with the weight in flight when it was admitted; a status
 * of 500 or more is a failure (a drop), as is an exception (the front doors give it 500). A lease that expires
 * unreleased gives no sample.
 */
final class AdaptiveLimits {

    /** The request attribute that marks a request critical: {@code Boolean.TRUE} or {@code "true"}. */
    static final String CRITICAL_ATTRIBUTE = "io.sluice.critical";
    /** The most (rule, key) limits a node keeps; past it, those of keys with nothing in flight are forgotten. */
    static final int MAX_KEYS = 10_000;

    private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();
    /** Appended to the key on a shared store: {@code "@node-<id>"}; empty on a store of this node alone. */
    private final String node;

    AdaptiveLimits(boolean sharedStore) {
        this.node = sharedStore ? "@node-" + Engine.newLeaseId().substring(0, 12) : "";
    }

    /** One (rule, key)'s limit, and the concurrency policies of its current value. */
    private static final class Entry {
        final Policy adaptive;
        final AdaptiveLimit limit;
        volatile Policy all;
        volatile Policy shared;

        Entry(Policy adaptive) {
            AdaptiveConcurrencySettings s = adaptive.settings(AdaptiveConcurrencySettings.class);
            this.adaptive = adaptive;
            this.limit = new AdaptiveLimit(adaptive.limit(), s.min(), s.maxLimit(adaptive.limit()));
            policies(adaptive.limit());
        }

        /** Follows the limit after a sample. */
        synchronized void refresh() {
            long l = limit.limit();
            if (all.limit() != l) {
                policies(l);
            }
        }

        /** The concurrency policies of limit {@code l}: the whole of it (critical), and without the reserve. */
        private void policies(long l) {
            AdaptiveConcurrencySettings s = adaptive.settings(AdaptiveConcurrencySettings.class);
            ConcurrencySettings lease = new ConcurrencySettings(s.leaseTimeoutMicros());
            long rest = Math.max(1, l * (100 - s.reservePercent()) / 100);
            all = new Policy(l, s.leaseTimeoutMicros(), lease, 0);
            shared = rest == l ? all : new Policy(rest, s.leaseTimeoutMicros(), lease, 0);
        }
    }

    /** @return whether {@code request} is marked critical by the application */
    static boolean critical(RequestView request) {
        Object mark = request.attribute(CRITICAL_ATTRIBUTE);
        return Boolean.TRUE.equals(mark) || "true".equals(mark);
    }

    /**
     * @param adaptive the rule's adaptive concurrency policy for this request
     * @return the concurrency check that takes its place in the store: the current limit for a critical request, that
     *     limit less the reserve for any other
     */
    Check check(Rule rule, String key, Policy adaptive, boolean critical) {
        String stored = key + node;
        Entry e = entry(rule.name(), stored, adaptive);
        return new Check(rule.name(), stored, critical ? e.all : e.shared, rule.cost(), rule.shadow(),
                Engine.newLeaseId());
    }

    /** @return the current limit of {@code rule} for {@code key}, or -1 when this node has none (tests, metrics) */
    long limit(String rule, String key) {
        Entry e = entries.get(rule + '\0' + key + node);
        return e == null ? -1 : e.limit.limit();
    }

    /** @return the least current limit of {@code rule} over its keys on this node, or -1 when it has none */
    long least(String rule) {
        String prefix = rule + '\0';
        long least = -1;
        for (var e : entries.entrySet()) {
            if (e.getKey().startsWith(prefix)) {
                long l = e.getValue().limit.limit();
                least = least < 0 ? l : Math.min(least, l);
            }
        }
        return least;
    }

    private Entry entry(String rule, String stored, Policy adaptive) {
        String id = rule + '\0' + stored;
        Entry e = entries.get(id);
        if (e != null && e.adaptive.equals(adaptive)) {
            return e;
        }
        if (e == null && entries.size() >= MAX_KEYS) {
            forgetOne();
        }
        // a new key, or another policy for it (an override, a reload): start again from its initial limit
        return entries.compute(id, (k, before) -> before != null && before.adaptive.equals(adaptive) ? before
                : new Entry(adaptive));
    }

    /** Forgets the limit of some key, to keep at most {@link #MAX_KEYS}. */
    private void forgetOne() {
        Iterator<String> it = entries.keySet().iterator();
        if (it.hasNext()) {
            it.next();
            it.remove();
        }
    }

    /**
     * A response of {@code decision} completed with {@code status} (0 when unknown: not a failure): a sample for each
     * adaptive limit that admitted it.
     *
     * @param rttMicros how long its leases were held: from the decision (after any delay) to now
     */
    void completed(Decision decision, int status, long rttMicros) {
        List<Lease> leases = decision.leases();
        if (entries.isEmpty()) {
            return;
        }
        for (int i = 0; i < leases.size(); i++) {
            Lease lease = leases.get(i);
            Entry e = entries.get(lease.rule() + '\0' + lease.key());
            if (e == null) {
                continue;
            }
            e.limit.sample(rttMicros, inFlight(decision, lease), status >= 500);
            e.refresh();
        }
    }

    /** @return the weight in flight under the lease's rule when it was taken, its own included */
    private static long inFlight(Decision decision, Lease lease) {
        for (RuleOutcome o : decision.outcomes()) {
            if (o.rule().name().equals(lease.rule())) {
                return Math.max(0, o.outcome().limit() - o.outcome().remaining());
            }
        }
        return 0;
    }
}
