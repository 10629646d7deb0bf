package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.policy.Policy;
import org.junit.jupiter.api.Test;

/** A quota the remote publishes lowers the limit in force, never raises it, in rate or in burst. */
class PolicyLearningTest {

    @Test
    void aLowerRateOverAShorterWindowIsTakenAsItIs() {
        PolicyLearning l = new PolicyLearning(Policy.parse("100/1m"));
        assertThat(l.inForce(10, 30)).isEqualTo(Policy.parse("10/30s"));
    }

    @Test
    void aLowerRateOverALongerWindowIsScaledToTheConfiguredPeriod() {
        PolicyLearning l = new PolicyLearning(Policy.parse("100/1m"));
        assertThat(l.inForce(3600, 3600)).isEqualTo(Policy.parse("60/1m"));
        // fewer than one per configured period: one every window / quota
        assertThat(new PolicyLearning(Policy.parse("100/1m")).inForce(2, 86_400)).isEqualTo(Policy.parse("1/12h"));
    }

    @Test
    void aHigherOrEqualRateNeverRaisesTheLimit() {
        Policy configured = Policy.parse("100/1m");
        PolicyLearning l = new PolicyLearning(configured);
        assertThat(l.inForce(1000, 60)).isSameAs(configured);
        assertThat(l.inForce(100, 60)).isSameAs(configured);
        assertThat(l.inForce(10, 60)).isEqualTo(Policy.parse("10/1m"));
        assertThat(l.inForce(1_000_000, 1)).isSameAs(configured);       // and back when the remote says more again
    }

    @Test
    void theBurstStaysWithinTheConfiguredOne() {
        PolicyLearning l = new PolicyLearning(Policy.parse("100/1m burst 5"));
        Policy p = l.inForce(40, 30);           // 80 a minute, below 100: at most 5 at once
        assertThat(p.capacity()).isEqualTo(5);
        assertThat(p.intervalMicros() * 80).isBetween(59_000_000L, 61_000_000L);
    }
}
