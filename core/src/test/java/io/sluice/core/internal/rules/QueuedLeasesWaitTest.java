package io.sluice.core.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.policy.Policy;
import org.junit.jupiter.api.Test;

/** The longest a request may wait in a queue: what {@code QueuedLeasesTest} (http) compares with a lease. */
class QueuedLeasesWaitTest {

    @Test
    void theLongestWaitIsMaxWaitOrWhatTheBucketHolds() {
        assertThat(QueuedLeases.longestWaitMicros(Policy.parse("1/1m burst 20 max-wait 1h"), 1)).isEqualTo(19 * 60_000_000L);
        assertThat(QueuedLeases.longestWaitMicros(Policy.parse("1/1m burst 20 max-wait 2m"), 1)).isEqualTo(120_000_000L);
        assertThat(QueuedLeases.longestWaitMicros(Policy.parse("1/1m burst 20 max-wait 1h"), 5))
                .as("a request of cost 5 fits only with 5 places free").isEqualTo(15 * 60_000_000L);
        assertThat(QueuedLeases.longestWaitMicros(Policy.parse("1/1m burst 20 max-wait 1h"), 21)).isZero();
    }
}
