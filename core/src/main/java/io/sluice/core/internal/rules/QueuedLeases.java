package io.sluice.core.internal.rules;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.LeakyBucketSettings;
import io.sluice.core.policy.Policy;
import io.sluice.core.request.RequestMatcher;
import io.sluice.core.Rule;
import io.sluice.core.config.ConfigException;
import io.sluice.core.policy.PolicyParser;
import java.util.ArrayList;
import java.util.List;

/**
 * Queueing next to a concurrency limit. A request that one rule queues ({@code max-wait}) waits holding the
 * concurrency leases other rules gave it in the same decision, and a lease expires after its rule's {@code lease}
 * timeout whether or not the request has run. When the longest wait of the queue is not shorter than the lease, a
 * request that waits that long runs without being counted in flight, and the concurrency rule admits more than its
 * limit: the two rules defeat each other.
 *
 * <p>Rules that both apply to every request (no {@code paths}, no {@code methods}) are refused unless the concurrency
 * rule is in shadow mode; for others (which may never match the same request, or only report) a warning says why. A
 * queue in shadow mode holds no request ({@link io.sluice.core.Decision#delayMicros()}), so it meets no concurrency
 * rule. The longest wait is {@code max-wait}, or less where the bucket cannot hold a longer line:
 * {@code (capacity - cost - delay) x interval}.
 *
 * <p>Public for the JAX-RS front door, whose rules of one resource method ({@link #checkTogether}) all apply to each
 * of its requests.
 */
public final class QueuedLeases {

    private QueuedLeases() {}

    /**
     * @param rules the rules in force together, before an allowlist narrows them
     * @return one warning per pair of a queueing and a concurrency rule that may defeat each other, empty when none
     * @throws ConfigException for such a pair that both apply to every request, the concurrency rule enforcing
     */
    public static List<String> check(List<Rule> rules) {
        return check(null, List.of(), rules);
    }

    /**
     * The check of {@link QueuedLeases} for the rules of one place, such as a JAX-RS resource method: {@code own} all
     * apply to every request there whatever their matchers say; {@code others} apply beside them by their matchers.
     * Pairs of two of {@code others} are not checked (the check of the configured rules did that).
     *
     * @param where the place, as errors and warnings name it ({@code @RateLimit on com.example.Api.get})
     * @param own the rules that apply to every request of {@code where}
     * @param others the rules that apply there by their matchers, before an allowlist narrows them
     * @return one warning per pair that may defeat each other, empty when none
     * @throws ConfigException naming {@code where}, for such a pair that both apply to every request of
     *     {@code where}, the concurrency rule enforcing
     */
    public static List<String> checkTogether(String where, List<Rule> own, List<Rule> others) {
        return check(where, own, others);
    }

    private static List<String> check(String where, List<Rule> own, List<Rule> others) {
        List<Rule> rules = new ArrayList<>(own);
        rules.addAll(others);
        List<String> warnings = new ArrayList<>();
        for (int q = 0; q < rules.size(); q++) {
            Rule queue = rules.get(q);
            Policy queuing = longestWaiting(queue);
            if (queuing == null) {
                continue;
            }
            long wait = longestWaitMicros(queuing, queue.cost());
            for (int c = 0; c < rules.size(); c++) {
                Rule concurrent = rules.get(c);
                Policy leasing = shortestLease(concurrent);
                if (leasing == null || wait < leaseOf(leasing)
                        || where != null && q >= own.size() && c >= own.size()) {
                    continue;
                }
                boolean everyRequest = (q < own.size() || queue.matcher() == RequestMatcher.ALL)
                        && (c < own.size() || concurrent.matcher() == RequestMatcher.ALL);
                String at = (where == null ? "" : where + ": ") + "rule \"" + concurrent.name() + "\"";
                if (everyRequest && !concurrent.shadow()) {
                    throw new ConfigException(at, PolicyParser.format(leasing),
                            expiry(queue, queuing, wait, leasing) + ", and both rules apply to every request"
                            + (where == null ? "" : " there") + ": " + consequence(concurrent, leasing) + "; expected "
                            + remedy(queue, wait, leasing));
                }
                warnings.add(at + " (" + PolicyParser.format(leasing) + "): "
                        + expiry(queue, queuing, wait, leasing) + ": " + consequence(concurrent, leasing) + ". "
                        + (everyRequest ? "It is in shadow mode: nothing is admitted wrongly, but it reports fewer"
                                + " would-be denials than it would make enforced."
                                : "Harmless if no request matches both rules (their paths or methods differ).")
                        + " Otherwise set " + remedy(queue, wait, leasing));
            }
        }
        return warnings;
    }

    /**
     * @return the policy of {@code rule} (its own or a tier's) whose queue is longest, or null when none queues or the
     *     rule is in shadow mode (it holds no request)
     */
    private static Policy longestWaiting(Rule rule) {
        if (rule.shadow()) {
            return null;
        }
        Policy longest = null;
        for (Policy p : policies(rule)) {
            if (p.algorithm() == Algorithm.LEAKY_BUCKET && p.queues() && rule.cost() > 0 && (longest == null
                    || longestWaitMicros(p, rule.cost()) > longestWaitMicros(longest, rule.cost()))) {
                longest = p;
            }
        }
        return longest == null || longestWaitMicros(longest, rule.cost()) == 0 ? null : longest;
    }

    /** @return the policy of {@code rule} whose lease is shortest, or null when it is no concurrency limit */
    private static Policy shortestLease(Rule rule) {
        Policy shortest = null;
        for (Policy p : policies(rule)) {
            if (p.algorithm().concurrent()
                    && (shortest == null || leaseOf(p) < leaseOf(shortest))) {
                shortest = p;
            }
        }
        return shortest;
    }

    private static List<Policy> policies(Rule rule) {
        List<Policy> all = new ArrayList<>();
        all.add(rule.policy());
        if (rule.tiers() != null) {
            all.addAll(rule.tiers().policies().values());
        }
        return all;
    }

    /**
     * The longest a leaky bucket queues a request of {@code cost}: it waits {@code base - now - delay x interval} and
     * fits while {@code base - now <= (capacity - cost) x interval}; at most {@code max-wait}.
     */
    static long longestWaitMicros(Policy p, long cost) {
        long ahead = p.capacity() - cost - p.settings(LeakyBucketSettings.class).delayThreshold(p.limit());
        return ahead <= 0 ? 0 : Math.min(p.maxWaitMicros(), ahead * p.intervalMicros());   // at most 2^52: no overflow
    }

    /** @return the lease timeout of a concurrency policy: its period */
    private static long leaseOf(Policy leasing) {
        return leasing.periodMicros();      // a concurrency policy's period is its lease, adaptive or not
    }

    private static String expiry(Rule queue, Policy queuing, long wait, Policy leasing) {
        String notation = PolicyParser.formatWithoutAlgorithm(queuing);     // max-wait says leaky-bucket
        return "its leases expire after " + PolicyParser.formatDuration(leaseOf(leasing))
                + ", but a request may wait up to " + PolicyParser.formatWait(wait) + " holding one in the queue of rule \""
                + queue.name() + "\" (" + notation + ")";
    }

    private static String consequence(Rule concurrent, Policy leasing) {
        return "a request that waits that long runs no longer counted in flight, so \"" + concurrent.name() + "\" "
                + (concurrent.shadow() ? "would admit" : "admits") + " more than " + leasing.limit();
    }

    private static String remedy(Rule queue, long wait, Policy leasing) {
        long seconds = -Math.floorDiv(-(wait + leaseOf(leasing)), 1_000_000);
        return "a lease longer than the longest wait plus the longest response time, such as \"" + leasing.limit()
                + " concurrent lease " + PolicyParser.formatDuration(seconds * 1_000_000) + "\", or a max-wait of \""
                + queue.name() + "\" below " + PolicyParser.formatDuration(leaseOf(leasing));
    }
}
