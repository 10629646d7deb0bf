package io.sluice.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.Algorithm;
import io.sluice.core.Policy;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PolicyParserTest {

    @Test
    void readsEveryNotationOfTheIssue() {
        assertThat(Policy.parse("100/1m")).extracting(Policy::limit, Policy::periodMicros, Policy::algorithm)
                .containsExactly(100L, 60_000_000L, Algorithm.GCRA);
        assertThat(Policy.parse("10/s")).extracting(Policy::limit, Policy::periodMicros).containsExactly(10L, 1_000_000L);
        assertThat(Policy.parse("5/10s burst 20")).extracting(Policy::limit, Policy::periodMicros, Policy::burst)
                .containsExactly(5L, 10_000_000L, 20L);
        assertThat(Policy.parse("10/1m min-interval 2s"))
                .extracting(Policy::limit, Policy::minIntervalMicros, Policy::algorithm)
                .containsExactly(10L, 2_000_000L, Algorithm.SLIDING_LOG);
        assertThat(Policy.parse("500/1h")).extracting(Policy::limit, Policy::periodMicros)
                .containsExactly(500L, 3_600_000_000L);
        assertThat(Policy.parse("20 concurrent")).extracting(Policy::limit, Policy::algorithm)
                .containsExactly(20L, Algorithm.CONCURRENCY);
        assertThat(Policy.parse("100/1s warm-up 30s"))
                .extracting(Policy::limit, Policy::warmupMicros, Policy::coldFactor, Policy::algorithm)
                .containsExactly(100L, 30_000_000L, 3, Algorithm.WARM_UP);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "1/500ms | 500000",
        "1/2s    | 2000000",
        "3/1d    | 86400000000",
        "7 / 1 m | 60000000",
        "2/H     | 3600000000"})
    void readsEveryUnit(String notation, long periodMicros) {
        assertThat(Policy.parse(notation).periodMicros()).isEqualTo(periodMicros);
    }

    @Test
    void readsQueueAndLeaseOptions() {
        Policy queue = PolicyParser.parse("limit", "10/s burst 5 max-wait 500ms delay 2", Algorithm.LEAKY_BUCKET);
        assertThat(queue).extracting(Policy::algorithm, Policy::capacity, Policy::maxWaitMicros, Policy::delayThreshold)
                .containsExactly(Algorithm.LEAKY_BUCKET, 5L, 500_000L, 2L);
        assertThat(Policy.parse("20 concurrent lease 30s").leaseTimeoutMicros()).isEqualTo(30_000_000L);
        assertThat(Policy.parse("10/1m count-rejected").countRejected()).isTrue();
        assertThat(PolicyParser.parse("limit", "10/1m staggered", Algorithm.FIXED_WINDOW).staggered()).isTrue();
        assertThat(Policy.parse("10/s burst 5 max-wait 1s").algorithm()).as("max-wait queues").isEqualTo(Algorithm.LEAKY_BUCKET);
        assertThat(Policy.parse("10/1m staggered").algorithm()).isEqualTo(Algorithm.FIXED_WINDOW);
    }

    @Test
    void optionsOfDifferentAlgorithmsDoNotMix() {
        assertThatThrownBy(() -> Policy.parse("10/1m min-interval 2s max-wait 1s")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("sliding-log").hasMessageContaining("leaky-bucket").hasMessageContaining("cannot be combined");
        assertThatThrownBy(() -> PolicyParser.parse("limit", "10/1m burst 20", Algorithm.FIXED_WINDOW))
                .isInstanceOf(ConfigException.class).hasMessageContaining("burst applies to");
        assertThatThrownBy(() -> Policy.parse("100001/1h min-interval 1s")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("sliding-window");
        assertThatThrownBy(() -> Policy.parse("10/1m lease 1s")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("lease applies to \"<n> concurrent\" limits");
    }

    @Test
    void explicitAlgorithmWinsWhenTheNotationAllowsIt() {
        assertThat(PolicyParser.parse("limit", "100/1m", Algorithm.TOKEN_BUCKET).algorithm())
                .isEqualTo(Algorithm.TOKEN_BUCKET);
        assertThatThrownBy(() -> PolicyParser.parse("limit", "10/1m min-interval 2s", Algorithm.FIXED_WINDOW))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("sliding-log").hasMessageContaining("fixed-window");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "100 per minute   | expected \"<n>/<period>\"",
        "100/1w           | unknown unit \"w\"",
        "0/1m             | limit",
        "10/1m burst      | \"burst\" needs a value",
        "10/1m burst x    | \"x\" is not a whole number",
        "10/1m turbo      | unknown option \"turbo\"",
        "10/0s            | period",
        "5/1m warm-up 0s  | warm-up"})
    void badNotationQuotesTheInputAndShowsAnExample(String notation, String reason) {
        assertThatThrownBy(() -> Policy.parse(notation))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("limit: ")
                .hasMessageContaining("\"" + notation.trim() + "\"")
                .hasMessageContaining(reason)
                .hasMessageContaining("such as \"100/1m\"");
    }

    @Test
    void blankAndHugeInputsFailClearly() {
        assertThatThrownBy(() -> Policy.parse("  ")).isInstanceOf(ConfigException.class).hasMessageContaining("100/1m");
        assertThatThrownBy(() -> Policy.parse("1".repeat(500) + "/1m")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("at most 200 characters");
        assertThatThrownBy(() -> Policy.parse("99999999999/1m")).isInstanceOf(ConfigException.class);
    }

    @Test
    void formatReadsBackToTheSamePolicy() {
        for (String notation : new String[] {"100/1m", "5/10s burst 20", "10/1m min-interval 2s", "20 concurrent",
                "100/1s warm-up 30s", "1/500ms", "20 concurrent lease 30s", "10/1m count-rejected"}) {
            Policy p = Policy.parse(notation);
            String formatted = PolicyParser.format(p);
            assertThat(PolicyParser.parse("limit", formatted.replaceAll(" \\(.*\\)$", ""), p.algorithm()))
                    .as(formatted).isEqualTo(p);
        }
    }

    @Property(tries = 2000)
    void anyInputEitherParsesOrFailsWithConfigException(@ForAll String input) {
        try {
            Policy p = Policy.parse(input);
            assertThat(p.limit()).isPositive();
        } catch (ConfigException expected) {
            assertThat(expected.getMessage()).startsWith("limit: ");
        }
    }

    /** capacity x interval is capped at 2^52 µs so that a stored time now + capacity x interval stays exact in Lua. */
    @Test
    void aBucketSpanAbove2To52MicrosecondsIsRejectedNamingThePolicy() {
        // 1/1d: interval 86 400 000 000 µs; 2^52 / interval = 52 124.99
        assertThat(Policy.parse("1/1d burst 52124").capacity()).isEqualTo(52_124);
        assertThatThrownBy(() -> Policy.parse("1/1d burst 52125")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("1/1d burst 52125").hasMessageContaining("2^52");
        assertThatThrownBy(() -> Policy.parse("1/1d burst 100000")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("2^52");
        assertThat(Policy.parse("60/366d").limit()).isEqualTo(60);
    }
}
