package io.sluice.core;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Outcome;
import io.sluice.core.store.Lease;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How long requests hold the leases of each concurrency rule on this node, so that a concurrency denial says when
 * room is likely to come back rather than when the oldest lease would expire unreleased. Thread-safe.
 *
 * <p>The store knows only the leases' expiries: a request that takes 1 s under {@code 2 concurrent} (lease timeout
 * 60 s) would be told to retry in 60 s, though a slot comes back within about a second. So the retry-after of a
 * concurrency denial is the estimate of this class, capped by the store's (a lease can expire no later), and at least
 * {@value #MIN_RETRY_MICROS} µs: with samples, a moving average of the time this node's requests held the rule's
 * leases (from the decision, less a queue's delay, to {@link Engine#release(Decision, int)}; each new sample weighs
 * 1/{@value #WEIGHT}); before the first, the time the lease the store waits for has been held already (a request that
 * has run for 5 s is likely to run for about as long again), as the rule has nothing better to go by.
 *
 * <p>Per rule, not per key: one rule's requests are alike, and the memory is bounded by the rules. Per node: each
 * node learns from the requests it admitted.
 */
final class HoldTimes {

    /** The shortest retry-after of a concurrency denial: {@value} µs, the one second {@code Retry-After} counts in. */
    static final long MIN_RETRY_MICROS = 1_000_000;
    /** A new sample weighs 1/{@value} of the average. */
    static final int WEIGHT = 8;

    /** Per concurrency rule, its average hold time in µs (a long array of one, updated under its lock). */
    private final ConcurrentHashMap<String, long[]> averages = new ConcurrentHashMap<>();

    /**
     * Learns the hold times of the concurrency leases {@code decision} held, now released.
     *
     * @param held how long they were held: from the decision (after any delay) to now, µs
     */
    void completed(Decision decision, long held) {
        List<Lease> leases = decision.leases();
        for (int i = 0; i < leases.size(); i++) {
            Lease lease = leases.get(i);
            if (lease.policy().algorithm() != Algorithm.CONCURRENCY || lease.rule() == null) {
                continue;
            }
            long[] average = averages.computeIfAbsent(lease.rule(), r -> new long[] {-1});
            synchronized (average) {
                average[0] = average[0] < 0 ? held : average[0] + (held - average[0]) / WEIGHT;
            }
        }
    }

    /** @return the average hold time of {@code rule}'s leases in µs; -1 before the first sample */
    long averageMicros(String rule) {
        long[] average = averages.get(rule);
        if (average == null) {
            return -1;
        }
        synchronized (average) {
            return average[0];
        }
    }

    /**
     * @return {@code decision} with the retry-after of each concurrency denial replaced by the estimate (see above);
     *     {@code decision} itself when it is allowed or has none
     */
    Decision honest(Decision decision) {
        if (decision.allowed()) {
            return decision;
        }
        List<RuleOutcome> outcomes = decision.outcomes();
        List<RuleOutcome> changed = null;
        for (int i = 0; i < outcomes.size(); i++) {
            RuleOutcome o = outcomes.get(i);
            Outcome out = o.outcome();
            if (o.policy().algorithm() != Algorithm.CONCURRENCY || out.allowed() || out.never()) {
                continue;
            }
            long retry = estimate(o.rule().name(), out.retryAfterMicros(), o.policy().periodMicros());
            if (retry == out.retryAfterMicros()) {
                continue;
            }
            if (changed == null) {
                changed = new ArrayList<>(outcomes);
            }
            changed.set(i, new RuleOutcome(o.rule(), o.policy(), Outcome.deny(out.limit(), out.remaining(),
                    out.resetAfterMicros(), retry), o.source(), o.chargedAtCheck()));
        }
        return changed == null ? decision : Decision.of(changed, decision.leases(), decision.atMicros());
    }

    /**
     * @param expiresMicros the store's retry-after: when the leases that make room expire, at the latest
     * @param leaseMicros the policy's lease timeout
     * @return the retry-after of a concurrency denial of {@code rule}: the estimate, at least
     *     {@value #MIN_RETRY_MICROS} µs, never later than {@code expiresMicros}
     */
    long estimate(String rule, long expiresMicros, long leaseMicros) {
        long average = averageMicros(rule);
        long estimate = average >= 0 ? average : Math.max(0, leaseMicros - expiresMicros);   // held so far
        return Math.min(expiresMicros, Math.max(MIN_RETRY_MICROS, estimate));
    }
}
