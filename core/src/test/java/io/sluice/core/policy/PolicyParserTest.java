package io.sluice.core.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.config.ConfigException;
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
        assertThat(Policy.parse("5/10s burst 20")).extracting(Policy::limit, Policy::periodMicros, Policy::capacity)
                .containsExactly(5L, 10_000_000L, 20L);
        assertThat(Policy.parse("10/1m min-interval 2s"))
                .extracting(Policy::limit, p -> p.settings(SlidingLogSettings.class).minIntervalMicros(), Policy::algorithm)
                .containsExactly(10L, 2_000_000L, Algorithm.SLIDING_LOG);
        assertThat(Policy.parse("500/1h")).extracting(Policy::limit, Policy::periodMicros)
                .containsExactly(500L, 3_600_000_000L);
        assertThat(Policy.parse("20 concurrent")).extracting(Policy::limit, Policy::algorithm)
                .containsExactly(20L, Algorithm.CONCURRENCY);
        assertThat(Policy.parse("100/1s warm-up 30s"))
                .extracting(Policy::limit, Policy::settings).containsExactly(100L, new WarmUpSettings(30_000_000L, 3));
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
        assertThat(queue).extracting(Policy::algorithm, Policy::capacity, Policy::maxWaitMicros, Policy::settings)
                .containsExactly(Algorithm.LEAKY_BUCKET, 5L, 500_000L, new LeakyBucketSettings(5, 500_000, 2));
        assertThat(Policy.parse("20 concurrent lease 30s")).extracting(Policy::settings, Policy::periodMicros)
                .containsExactly(new ConcurrencySettings(30_000_000L), 30_000_000L);
        assertThat(Policy.parse("10/1m count-rejected").settings()).isEqualTo(new SlidingLogSettings(0, true));
        assertThat(PolicyParser.parse("limit", "10/1m staggered", Algorithm.FIXED_WINDOW).settings())
                .isEqualTo(new FixedWindowSettings(true));
        assertThat(Policy.parse("10/s burst 5 max-wait 1s").algorithm()).as("max-wait queues").isEqualTo(Algorithm.LEAKY_BUCKET);
        assertThat(Policy.parse("10/1m staggered").algorithm()).isEqualTo(Algorithm.FIXED_WINDOW);
    }

    /**
     * {@code delay} without {@code max-wait} parsed as a leaky bucket that never queues: it behaved as {@code nodelay},
     * though the notation says delay makes a queue. It is refused, with a notation that queues: the max-wait a full
     * bucket takes to drain, in whole milliseconds, within max-wait's bound of 366 days.
     */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "10/1s burst 6 delay 3          | 10/1s burst 6 max-wait 600ms delay 3",
        "10/1s delay 3                  | 10/1s max-wait 1s delay 3",
        "3/1s burst 2 delay 1           | 3/1s burst 2 max-wait 667ms delay 1",
        "10/1s burst 6 max-wait 0s delay 3 | 10/1s burst 6 max-wait 600ms delay 3",
        "1/366d burst 142 delay 1       | 1/366d burst 142 max-wait 366d delay 1"})
    void delayWithoutMaxWaitIsRefusedShowingANotationThatQueues(String notation, String queue) {
        for (Algorithm algorithm : new Algorithm[] {null, Algorithm.LEAKY_BUCKET}) {
            assertThatThrownBy(() -> PolicyParser.parse("limit", notation, algorithm)).isInstanceOf(ConfigException.class)
                    .hasMessageStartingWith("limit: delay queues requests only with max-wait, and alone changes nothing: "
                            + "add max-wait, such as \"" + queue + "\" (as long as the full bucket takes to drain), or "
                            + "drop delay;")
                    .hasMessageEndingWith(", got \"" + notation + "\"");
        }
        Policy queued = Policy.parse(queue);
        assertThat(queued).extracting(Policy::algorithm, PolicyParser::formatWithoutAlgorithm)
                .containsExactly(Algorithm.LEAKY_BUCKET, queue);
        assertThatThrownBy(() -> PolicyParser.parse("limit", notation, Algorithm.GCRA)).as("another algorithm")
                .hasMessageContaining("needs the leaky-bucket algorithm, but gcra was configured");
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
        "5/1m warm-up 0s  | warm-up",
        "100/1M           | unit \"M\" is ambiguous",
        "100/M            | unit \"M\" is ambiguous",
        "5/1m burst 2 burst 3 | \"burst\" is given twice",
        "10/1m count-rejected count-rejected | \"count-rejected\" is given twice"})
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

    /**
     * capacity x interval can pass 2^63 (up to a billion x 366 days): "1/366d burst 300000" wrapped to a negative span
     * and was accepted; GCRA then denied its first request with a retry-after of 284,000 years, and with
     * "burst 291673" admitted every request.
     */
    @ParameterizedTest
    @CsvSource({"1/366d burst 300000", "1/366d burst 291673", "1/366d burst 1000000000", "1/1d burst 999999999"})
    void aBucketSpanWhoseProductPassesALongIsRejectedToo(String notation) {
        assertThatThrownBy(() -> Policy.parse(notation)).isInstanceOf(ConfigException.class)
                .hasMessageContaining(notation).hasMessageContaining("2^52");
        Policy plain = Policy.parse("1/366d");
        assertThatThrownBy(() -> plain.withSettings(new GcraSettings(300_000))).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("burst: ").hasMessageContaining("2^52");
        assertThat(Policy.parse("1/366d burst 142").capacity()).as("the largest that fits: 2^52 / 366 days = 142.4")
                .isEqualTo(142);
    }

    /** A cold factor was cast to an int after capping it above only: -4294967293 wrapped to 3 and was accepted. */
    @ParameterizedTest
    @CsvSource({"-4294967293", "4294967299", "-9223372036854775807", "0", "1001"})
    void aColdFactorOutsideItsRangeIsRejectedNotWrapped(String factor) {
        String notation = "100/1s warm-up 30s cold-factor " + factor;
        assertThatThrownBy(() -> Policy.parse(notation)).isInstanceOf(ConfigException.class)
                .hasMessageContaining(notation).hasMessageContaining("between 1 and 1000");
        assertThat(Policy.parse("100/1s warm-up 30s cold-factor 1000").settings(WarmUpSettings.class).coldFactor())
                .isEqualTo(1000);
    }

    /**
     * An option beyond its bound was refused for the wrong reason: "max-wait 400d" was "expected a non-negative
     * maximum wait", and "20 concurrent lease 400d" (or "lease 0s") blamed the period, which that notation does not
     * have.
     */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "20 concurrent lease 400d   | expected a lease timeout between 1 microsecond and 366 days",
        "20 concurrent lease 0s     | expected a lease timeout between 1 microsecond and 366 days",
        "10/1s max-wait 400d        | expected a max-wait between 0 and 366 days",
        "10/1m min-interval 400d    | expected a min-interval between 0 and 366 days",
        "10/1s warm-up 400d         | expected a warm-up period between 0 and 366 days",
        "10/1s delay 2000000000     | expected a delay between 0 and 1000000000 requests",
        "10/400d                    | expected a period between 1 microsecond and 366 days"})
    void anOptionBeyondItsBoundIsRefusedSayingTheBound(String notation, String reason) {
        assertThatThrownBy(() -> Policy.parse(notation)).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("limit: " + reason).hasMessageContaining("\"" + notation + "\"");
        assertThat(Policy.parse("20 concurrent lease 366d").periodMicros()).isEqualTo(366L * 86_400_000_000L);
        assertThat(Policy.parse("10/1s max-wait 366d").maxWaitMicros()).isEqualTo(366L * 86_400_000_000L);
    }

    /**
     * Warm-up's waits are whole microseconds, truncated: below one microsecond per permit a request cost no time, so
     * "2000000/1s warm-up 1s" admitted every request once warm (a million at one instant).
     */
    @Test
    void aWarmUpFasterThanOnePermitPerMicrosecondIsRejected() {
        assertThatThrownBy(() -> Policy.parse("2000000/1s warm-up 1s")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("at least 1 microsecond apart").hasMessageContaining("1000000")
                .hasMessageContaining("fixed-window or sliding-window");
        assertThatThrownBy(() -> Policy.of(Algorithm.WARM_UP, 1_000_000_000, java.time.Duration.ofMillis(1)))
                .isInstanceOf(ConfigException.class).hasMessageStartingWith("limit: ");
        assertThatThrownBy(() -> Policy.parse("2000000/1s").withAlgorithm(Algorithm.WARM_UP))
                .isInstanceOf(ConfigException.class);
        assertThat(Policy.parse("1000000/1s warm-up 1s").algorithm()).isEqualTo(Algorithm.WARM_UP);
        assertThat(Policy.parse("2000000/1s").withAlgorithm(Algorithm.FIXED_WINDOW).algorithm())
                .as("a counting algorithm takes any rate").isEqualTo(Algorithm.FIXED_WINDOW);
    }
}
