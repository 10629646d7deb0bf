package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

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
}
