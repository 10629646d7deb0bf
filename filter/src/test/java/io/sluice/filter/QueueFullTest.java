package io.sluice.filter;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.Decision;
import io.sluice.core.policy.Outcome;
import io.sluice.core.Rule;
import io.sluice.core.RuleOutcome;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The decision that takes the place of a request admitted after a delay while the filter's queue is full. */
class QueueFullTest {

    private static RuleOutcome outcome(Rule rule, Outcome outcome) {
        return new RuleOutcome(rule, rule.policy(), outcome, RuleOutcome.Source.STORE);
    }

    /**
     * The store charged every rule of the admitted request: the refusal keeps their outcomes, so listeners (metrics,
     * the CDI event) and the shadow report see the whole request, and only the queueing rule's becomes a denial, which
     * binds (the 429's headers and body are that rule's, as before).
     */
    @Test
    void theRefusalKeepsEveryOtherRulesOutcomeAndIsBoundByTheQueueingRule() {
        Rule perIp = Rule.builder("per-ip").policy("100/1m").build();
        Rule queue = Rule.builder("queue").policy("2/1s burst 10 max-wait 1m").build();
        Rule trial = Rule.builder("trial").policy("5/1m").shadow().build();
        Decision admitted = Decision.of(List.of(
                outcome(perIp, Outcome.allow(100, 41, 30_000_000)),
                outcome(queue, new Outcome(true, 10, 3, 4_000_000, 0, 1_500_000)),
                outcome(trial, Outcome.deny(5, 0, 20_000_000, 20_000_000))), List.of(), 7_000_000);
        assertThat(admitted.allowed()).isTrue();
        assertThat(admitted.delayMicros()).isEqualTo(1_500_000);

        Decision refused = RateLimitFilter.queueFull(admitted);

        assertThat(refused.allowed()).isFalse();
        assertThat(refused.leases()).isEmpty();
        assertThat(refused.atMicros()).isEqualTo(7_000_000);
        assertThat(refused.outcomes()).extracting(o -> o.rule().name()).containsExactly("per-ip", "queue", "trial");
        assertThat(refused.outcomes().get(0).outcome()).as("per-ip: kept as the store answered")
                .isEqualTo(admitted.outcomes().get(0).outcome());
        assertThat(refused.outcomes().get(2).outcome()).as("the shadow denial: kept, for the shadow report")
                .isEqualTo(admitted.outcomes().get(2).outcome());
        RuleOutcome binding = refused.binding();
        assertThat(binding.rule().name()).isEqualTo("queue");
        assertThat(binding.outcome().allowed()).isFalse();
        assertThat(binding.outcome().retryAfterMicros()).as("its wait").isEqualTo(1_500_000);
        assertThat(binding.outcome().limit()).isEqualTo(10);
        assertThat(binding.outcome().remaining()).isEqualTo(3);
        assertThat(binding.outcome().resetAfterMicros()).isEqualTo(4_000_000);
        assertThat(refused.shadowDenied()).as("the shadow rule would have denied it too").isTrue();
    }
}
