package io.sluice.core.algorithm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The rule of {@link AdaptiveLimit}, round by round. */
class AdaptiveLimitTest {

    /** One round of {@code limit} samples (at least 10), each of latency {@code rtt} with {@code inFlight}. */
    private static long round(AdaptiveLimit a, long rtt, long inFlight, boolean failLast) {
        long n = Math.max(AdaptiveLimit.MIN_ROUND, a.limit());
        long l = a.limit();
        for (long i = 0; i < n; i++) {
            l = a.sample(rtt, inFlight, failLast && i == n - 1);
        }
        return l;
    }

    @Test
    void growsFastWithoutAQueueAndOnlyOnceARound() {
        AdaptiveLimit a = new AdaptiveLimit(20, 1, 200);
        for (int i = 0; i < 19; i++) {
            assertThat(a.sample(10_000, 20, false)).isEqualTo(20);      // mid-round: unchanged
        }
        assertThat(a.sample(10_000, 20, false)).isEqualTo(26);           // no queue: + beta (6 log, log 1)
        assertThat(a.baseMicros()).isEqualTo(10_000);
    }

    @Test
    void settlesWhereAFewRequestsQueue() {
        AdaptiveLimit a = new AdaptiveLimit(50, 1, 200);
        round(a, 10_000, 50, false);                // base 10 ms; 56
        // a queue of ceil(56 * (1 - 10/11)) = 6: > alpha 3 but not > beta 6: unchanged
        assertThat(round(a, 11_000, 56, false)).isEqualTo(56);
        // ceil(56 * (1 - 10/10.5)) = 3: not < alpha: unchanged
        assertThat(round(a, 10_500, 56, false)).isEqualTo(56);
        // ceil(56 * (1 - 10/10.4)) = 3... and 2 at 10.3 ms: < alpha, > log: + log
        assertThat(round(a, 10_300, 56, false)).isEqualTo(57);
        // ceil(57 * (1 - 10/12)) = 10 > beta: - log
        assertThat(round(a, 12_000, 57, false)).isEqualTo(56);
    }

    @Test
    void aFailureCutsTheLimitByATenthOnceARound() {
        AdaptiveLimit a = new AdaptiveLimit(100, 5, 200);
        assertThat(round(a, 10_000, 100, true)).isEqualTo(90);
        assertThat(round(a, 10_000, 90, true)).isEqualTo(81);
        AdaptiveLimit low = new AdaptiveLimit(5, 5, 200);
        assertThat(round(low, 10_000, 5, true)).as("never below min").isEqualTo(5);
    }

    @Test
    void anUnusedLimitDoesNotGrow() {
        AdaptiveLimit a = new AdaptiveLimit(40, 1, 200);
        assertThat(round(a, 10_000, 19, false)).isEqualTo(40);     // 19 * 2 < 40
        assertThat(round(a, 10_000, 20, false)).isEqualTo(46);
    }

    @Test
    void staysWithinMinAndMax() {
        AdaptiveLimit a = new AdaptiveLimit(20, 10, 30);
        for (int i = 0; i < 10; i++) {
            round(a, 10_000, a.limit(), false);
        }
        assertThat(a.limit()).isEqualTo(30);
        for (int i = 0; i < 50; i++) {
            round(a, 100_000, a.limit(), false);        // ten times the base: a long queue
        }
        assertThat(a.limit()).isEqualTo(10);
        assertThatThrownBy(() -> new AdaptiveLimit(5, 6, 10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new AdaptiveLimit(5, 1, 4)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void relearnsTheNoLoadLatencyEveryProbe() {
        AdaptiveLimit a = new AdaptiveLimit(20, 1, 20);
        round(a, 10_000, 20, false);
        assertThat(a.baseMicros()).isEqualTo(10_000);
        for (int i = 1; i < AdaptiveLimit.PROBE_ROUNDS; i++) {
            round(a, 20_000, 20, false);        // slower for good
        }
        assertThat(a.baseMicros()).as("the least of the probe's rounds").isEqualTo(10_000);
        for (int i = 0; i < AdaptiveLimit.PROBE_ROUNDS; i++) {
            round(a, 20_000, a.limit(), false);
        }
        assertThat(a.baseMicros()).isEqualTo(20_000);
        assertThat(a.limit()).as("fallen while 20 ms read as a queue").isLessThan(20);
        for (int i = 0; i < 5; i++) {
            round(a, 20_000, a.limit(), false);
        }
        assertThat(a.limit()).as("back to its max once 20 ms is the norm").isEqualTo(20);
    }
}
