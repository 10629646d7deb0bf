package io.sluice.core.http;

import io.sluice.core.Algorithm;
import io.sluice.core.Policy;
import io.sluice.core.RequestMatcher;
import io.sluice.core.Rule;
import io.sluice.core.config.ConfigException;
import io.sluice.core.config.PolicyParser;
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
 */
final class QueuedLeases {

    private QueuedLeases() {}

    /**
     * @param rules the rules in force together, before an allowlist narrows them
     * @return one warning per pair of a queueing and a concurrency rule that may defeat each other, empty when none
     * @throws ConfigException for such a pair that both apply to every request, the concurrency rule enforcing
     */
    static List<String> check(List<Rule> rules) {
        List<String> warnings = new ArrayList<>();
        for (Rule queue : rules) {
            Policy queuing = longestWaiting(queue);
            if (queuing == null) {
                continue;
            }
            long wait = longestWaitMicros(queuing, queue.cost());
            for (Rule concurrent : rules) {
                Policy leasing = shortestLease(concurrent);
                if (leasing == null || wait < leasing.leaseTimeoutMicros()) {
                    continue;
                }
                boolean everyRequest = queue.matcher() == RequestMatcher.ALL && concurrent.matcher() == RequestMatcher.ALL;
                if (everyRequest && !concurrent.shadow()) {
                    throw new ConfigException("rule \"" + concurrent.name() + "\"", PolicyParser.format(leasing),
                            expiry(queue, queuing, wait, leasing) + ", and both rules apply to every request: "
                            + consequence(concurrent, leasing) + "; expected " + remedy(queue, wait, leasing));
                }
                warnings.add("rule \"" + concurrent.name() + "\" (" + PolicyParser.format(leasing) + "): "
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
            if (p.algorithm() == Algorithm.CONCURRENCY
                    && (shortest == null || p.leaseTimeoutMicros() < shortest.leaseTimeoutMicros())) {
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
        long ahead = p.capacity() - cost - Math.min(p.delayThreshold(), p.capacity());
        return ahead <= 0 ? 0 : Math.min(p.maxWaitMicros(), ahead * p.intervalMicros());   // at most 2^52: no overflow
    }

    private static String expiry(Rule queue, Policy queuing, long wait, Policy leasing) {
        String notation = PolicyParser.format(queuing);          // max-wait says leaky-bucket: not repeated
        notation = notation.substring(0, notation.length() - queuing.algorithm().id().length() - 3);
        return "its leases expire after " + PolicyParser.formatDuration(leasing.leaseTimeoutMicros())
                + ", but a request may wait up to " + duration(wait) + " holding one in the queue of rule \""
                + queue.name() + "\" (" + notation + ")";
    }

    private static String consequence(Rule concurrent, Policy leasing) {
        return "a request that waits that long runs no longer counted in flight, so \"" + concurrent.name() + "\" "
                + (concurrent.shadow() ? "would admit" : "admits") + " more than " + leasing.limit();
    }

    private static String remedy(Rule queue, long wait, Policy leasing) {
        long seconds = -Math.floorDiv(-(wait + leasing.leaseTimeoutMicros()), 1_000_000);
        return "a lease longer than the longest wait plus the longest response time, such as \"" + leasing.limit()
                + " concurrent lease " + PolicyParser.formatDuration(seconds * 1_000_000) + "\", or a max-wait of \""
                + queue.name() + "\" below " + PolicyParser.formatDuration(leasing.leaseTimeoutMicros());
    }

    /** A wait as the notation writes it, rounded up to whole milliseconds when it has microseconds. */
    private static String duration(long micros) {
        return PolicyParser.formatDuration(micros % 1_000 == 0 ? micros : micros - micros % 1_000 + 1_000);
    }
}
