package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Policy;
import io.sluice.core.policy.Outcome;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class DecisionTest {

    private static RuleOutcome allowed(String rule, long remaining, long resetAfterMicros) {
        Policy policy = Policy.of(Algorithm.FIXED_WINDOW, 10, Duration.ofMinutes(1));
        return new RuleOutcome(Rule.builder(rule).policy(policy).build(), policy,
                Outcome.allow(10, remaining, resetAfterMicros), RuleOutcome.Source.STORE);
    }

    @Test
    void anAllowedRequestIsBoundByTheLeastRoomAndOfEqualRoomByTheLaterReset() {
        assertThat(Decision.of(List.of(allowed("a", 3, 50_000_000), allowed("b", 2, 10_000_000)), List.of(), 0)
                .binding().rule().name()).isEqualTo("b");
        assertThat(Decision.of(List.of(allowed("a", 0, 10_000_000), allowed("b", 0, 50_000_000)), List.of(), 0)
                .binding().rule().name()).as("both empty: b's room comes back later").isEqualTo("b");
        assertThat(Decision.of(List.of(allowed("a", 0, 50_000_000), allowed("b", 0, 10_000_000)), List.of(), 0)
                .binding().rule().name()).isEqualTo("a");
    }

    /** @return an outcome of a leaky bucket in queue mode that admits the request after {@code delayMicros} */
    private static RuleOutcome queued(Rule rule, long delayMicros) {
        return new RuleOutcome(rule, rule.policy(), new Outcome(true, 10, 3, 10_000_000, 0, delayMicros),
                RuleOutcome.Source.STORE);
    }

    /**
     * Shadow mode never changes what happens to a request: a shadow queue's wait holds nobody, and is reported as
     * {@link Decision#shadowDelayMicros()}; an enforced queue's wait is the decision's delay, as before.
     */
    @Test
    void aShadowQueuesWaitIsReportedAndHoldsNobody() {
        Rule enforced = Rule.builder("queue").policy("1/1s burst 10 max-wait 1m").build();
        Rule shadow = Rule.builder("trial-queue").policy("1/1s burst 10 max-wait 1m").shadow().build();

        Decision alone = Decision.of(List.of(queued(shadow, 5_000_000)), List.of(), 0);
        assertThat(alone.allowed()).isTrue();
        assertThat(alone.delayMicros()).as("a shadow rule holds no request").isZero();
        assertThat(alone.shadowDelayMicros()).as("what it would have held it").isEqualTo(5_000_000);
        assertThat(alone.shadowDenied()).isFalse();

        Decision both = Decision.of(List.of(queued(shadow, 5_000_000), queued(enforced, 2_000_000)), List.of(), 0);
        assertThat(both.delayMicros()).as("the enforced queue's wait, not the shadow one's longer one")
                .isEqualTo(2_000_000);
        assertThat(both.shadowDelayMicros()).isEqualTo(5_000_000);
        assertThat(both.binding().rule()).as("enforced rules speak first").isSameAs(enforced);

        Decision enforcedOnly = Decision.of(List.of(queued(enforced, 2_000_000)), List.of(), 0);
        assertThat(enforcedOnly.delayMicros()).isEqualTo(2_000_000);
        assertThat(enforcedOnly.shadowDelayMicros()).isZero();
    }
}
