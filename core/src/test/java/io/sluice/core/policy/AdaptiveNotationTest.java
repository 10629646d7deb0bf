package io.sluice.core.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.config.ConfigException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** The notation of {@link Algorithm#ADAPTIVE_CONCURRENCY}, and the start-up errors of its bad values. */
class AdaptiveNotationTest {

    @Test
    void readsAndWritesIt() {
        Policy p = Policy.parse("20 concurrent adaptive min 5 max 200 reserve 20 lease 30s");
        assertThat(p.algorithm()).isEqualTo(Algorithm.ADAPTIVE_CONCURRENCY);
        assertThat(p.limit()).isEqualTo(20);
        assertThat(p.periodMicros()).isEqualTo(30_000_000L);
        assertThat(p.settings()).isEqualTo(new AdaptiveConcurrencySettings(30_000_000L, 5, 200, 20));
        assertThat(p).hasToString("20 concurrent adaptive min 5 max 200 reserve 20 lease 30s");
        assertThat(Policy.parse(p.toString())).isEqualTo(p);

        Policy defaults = Policy.parse("20 concurrent adaptive");
        assertThat(defaults.settings()).isEqualTo(AdaptiveConcurrencySettings.DEFAULT);
        assertThat(defaults).hasToString("20 concurrent adaptive");
        assertThat(defaults.settings(AdaptiveConcurrencySettings.class).maxLimit(20)).isEqualTo(200);
    }

    @Test
    void anOptionOfItsOwnOrTheRulesAlgorithmNamesIt() {
        assertThat(Policy.parse("20 concurrent max 200").algorithm()).isEqualTo(Algorithm.ADAPTIVE_CONCURRENCY);
        assertThat(PolicyParser.parse("limit", "20 concurrent", Algorithm.ADAPTIVE_CONCURRENCY))
                .isEqualTo(Policy.parse("20 concurrent adaptive"));
        assertThat(PolicyParser.parse("limit", "20 concurrent lease 5s", Algorithm.CONCURRENCY).algorithm())
                .isEqualTo(Algorithm.CONCURRENCY);
        assertThat(Algorithm.fromId("algorithm", "adaptive-concurrency")).isEqualTo(Algorithm.ADAPTIVE_CONCURRENCY);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "20 concurrent adaptive min 0           | min         | 0",
        "20 concurrent adaptive min 21          | min         | 21",
        "20 concurrent adaptive max 19          | max         | 19",
        "20 concurrent adaptive max 2000000000  | max         | 2000000000",
        "20 concurrent adaptive reserve 95      | reserve     | 95",
        "20 concurrent adaptive lease 0s        | a lease timeout (lease) | 0"})
    void refusesBadValuesNamingTheParameterAndTheValue(String notation, String option, String value) {
        assertThatThrownBy(() -> PolicyParser.parse("limit", notation, null)).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("limit: ").hasMessageContaining("expected " + option)
                .hasMessageContaining("\"" + value + "\"");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "20 concurrent adaptive penalty 1s   | takes only the options min, max, reserve and lease",
        "20 concurrent adaptive leased 1s    | leased",
        "20 concurrent adaptive burst 5      | takes only the options min, max, reserve and lease",
        "100/1m adaptive                     | apply to \"<n> concurrent\" limits",
        "100/1m max 200                      | apply to \"<n> concurrent\" limits",
        "20 concurrent adaptive adaptive     | given twice"})
    void refusesWhatItCannotDo(String notation, String message) {
        assertThatThrownBy(() -> PolicyParser.parse("limit", notation, null)).isInstanceOf(ConfigException.class)
                .hasMessageContaining(message);
    }

    @Test
    void refusesAnotherAlgorithmOfTheRule() {
        assertThatThrownBy(() -> PolicyParser.parse("limit", "20 concurrent max 200", Algorithm.CONCURRENCY))
                .isInstanceOf(ConfigException.class).hasMessageContaining("needs the adaptive-concurrency algorithm");
        assertThatThrownBy(() -> PolicyParser.parse("limit", "100/1m", Algorithm.ADAPTIVE_CONCURRENCY))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("the adaptive-concurrency algorithm takes \"<n> concurrent\"");
        assertThatThrownBy(() -> PolicyParser.parse("limit", "20 concurrent adaptive", Algorithm.GCRA))
                .isInstanceOf(ConfigException.class).hasMessageContaining("cannot use gcra");
    }
}
