package io.sluice.core.algorithm;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.BucketSettings;
import io.sluice.core.policy.Policies;
import io.sluice.core.policy.Policy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What each algorithm sends the Redis script and tells clients, read from its {@link Definition}. */
class DefinitionTest {

    /** The arguments a definition writes, as the script receives them: decimal strings. */
    private static final class Written implements Definition.Arguments {
        final List<String> values = new ArrayList<>();

        @Override
        public void add(long number) {
            values.add(Long.toString(number));
        }

        @Override
        public void add(String text) {
            values.add(text == null ? "" : text);
        }
    }

    private static List<String> arguments(Policy policy) {
        Written out = new Written();
        Algorithms.definition(policy.algorithm()).arguments(policy, out);
        return out.values;
    }

    private static List<String> checkArguments(Policy policy, String key, String leaseId) {
        Written out = new Written();
        Definition d = Algorithms.definition(policy.algorithm());
        d.checkArguments(key, leaseId, policy, out);
        assertThat(out.values).as("checkArgumentCount").hasSize(d.checkArgumentCount());
        return out.values;
    }

    @Test
    void eachAlgorithmSendsTheNumbersItsFragmentReads() {
        assertThat(arguments(Policy.parse("5/1s burst 2"))).containsExactly("2", "200000");
        assertThat(arguments(Policy.parse("5/1s burst 2").withAlgorithm(Algorithm.TOKEN_BUCKET)))
                .containsExactly("2", "200000");
        assertThat(arguments(Policy.parse("5/1s burst 2 max-wait 1s delay 9")))
                .as("the delay is capped at the capacity").containsExactly("2", "200000", "1000000", "2");
        assertThat(arguments(Policy.parse("10/1m staggered"))).containsExactly("10", "60000000");
        assertThat(arguments(Policy.of(Algorithm.SLIDING_WINDOW, 10, Duration.ofMinutes(1))))
                .containsExactly("10", "60000000");
        assertThat(arguments(Policy.parse("10/1s warm-up 30s cold-factor 4")))
                .containsExactly("10", "1000000", "30000000", "4");
        assertThat(arguments(Policy.parse("10/1m min-interval 2s count-rejected")))
                .containsExactly("10", "60000000", "2000000", "1");
        assertThat(arguments(Policy.parse("20 concurrent lease 30s"))).containsExactly("20", "30000000");
    }

    @Test
    void aCheckSendsItsStaggerOffsetOrItsLeaseId() {
        Policy staggered = Policy.parse("10/1m staggered");
        assertThat(checkArguments(staggered, "client-1", null))
                .containsExactly(Long.toString(Algorithms.staggerOffsetMicros("client-1", staggered)));
        assertThat(checkArguments(Policy.parse("10/1m").withAlgorithm(Algorithm.FIXED_WINDOW), "client-1", null))
                .containsExactly("0");
        assertThat(checkArguments(Policy.parse("20 concurrent"), "k", "lease-7")).containsExactly("lease-7");
        assertThat(checkArguments(Policy.parse("5/1s"), "k", null)).isEmpty();
    }

    @Test
    void aBucketTellsClientsItsCapacityTheOthersTheirLimit() {
        for (Algorithm a : Algorithm.values()) {
            if (a.local()) {
                assertThat(Algorithms.definition(a)).as("%s is decided by the engine", a).isNull();
                continue;
            }
            Policy p = a == Algorithm.CONCURRENCY ? Policy.concurrent(5)
                    : Policies.burstWhereTaken(Policy.of(a, 5, Duration.ofSeconds(1)), 8);
            boolean bucket = p.settings() instanceof BucketSettings;
            assertThat(Algorithms.definition(a).limit(p)).as("%s", a).isEqualTo(bucket ? 8 : 5);
        }
        assertThat(Algorithm.values()).filteredOn(a -> a.defaults(1) instanceof BucketSettings)
                .containsExactly(Algorithm.TOKEN_BUCKET, Algorithm.LEAKY_BUCKET, Algorithm.GCRA);
    }

    @Test
    void onlyTheSlidingLogNamesItsMembersAndOnlyGcraHasAFastMode() {
        assertThat(Algorithms.all()).filteredOn(Definition::namesMembers).extracting(Definition::algorithm)
                .containsExactly(Algorithm.SLIDING_LOG);
        assertThat(Algorithms.all()).filteredOn(Definition::fast).extracting(Definition::algorithm)
                .containsExactly(Algorithm.GCRA);
    }

    @Test
    void everyFragmentSitsBesideItsClassNamedAfterItsAlgorithm() {
        for (Definition d : Algorithms.all()) {
            assertThat(d.fragment()).isEqualTo(d.algorithm().id() + ".lua");
            assertThat(d.lua()).as(d.fragment()).startsWith("-- " + d.fragment() + ": the Redis twin of ")
                    .contains("--@ step");
        }
    }
}
