package io.sluice.core.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.config.ConfigException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The {@code leased} option: which algorithms take it, the reserve it keeps, and how it reads and prints. */
class LeasedPolicyTest {

    @Test
    void aLeaseKeepsItsTimesWorthOfABucketInReserve() {
        Policy gcra = Policy.parse("1000/1s leased 100ms");
        assertThat(gcra).extracting(Policy::algorithm, Policy::leasedMicros, Policy::capacity, Policy::intervalMicros)
                .containsExactly(Algorithm.GCRA, 100_000L, 900L, 1_000L);
        assertThat(PolicyParser.parse("limit", "10/1s burst 20 leased 150ms", Algorithm.TOKEN_BUCKET).capacity())
                .as("ceil(150 ms / 100 ms) = 2 in reserve").isEqualTo(18);
        assertThat(PolicyParser.parse("limit", "25/1s leased 300ms", Algorithm.FIXED_WINDOW).capacity())
                .as("a fixed window's block ends with its window: no reserve").isEqualTo(25);
        assertThat(Policy.parse("1000/1s").capacity()).isEqualTo(1000);
    }

    @Test
    void readsAndPrintsTheOption() {
        Policy p = Policy.parse("1000/1s burst 2000 leased 100ms penalty 1m");
        assertThat(p.toString()).isEqualTo("1000/1s burst 2000 penalty 1m leased 100ms (gcra)");
        assertThat(Policy.parse(p.toString().replace(" (gcra)", ""))).isEqualTo(p);
        assertThat(p).isNotEqualTo(Policy.parse("1000/1s burst 2000 penalty 1m"));
        assertThat(Policy.parse("1000/1s").withLeased(Duration.ofMillis(100))).isEqualTo(Policy.parse("1000/1s leased 100ms"));
        assertThat(Policy.parse("1000/1s leased 100ms").withLeased(Duration.ZERO)).isEqualTo(Policy.parse("1000/1s"));
    }

    @Test
    void algorithmsThatCannotLeaseAreRefusedNamingTheOnesThatCan() {
        for (String notation : new String[] {"10/1m min-interval 1s leased 100ms", "100/1s warm-up 10s leased 100ms",
            "10/s burst 5 max-wait 1s leased 100ms"}) {
            assertThatThrownBy(() -> Policy.parse(notation)).isInstanceOf(ConfigException.class)
                    .hasMessageContaining("\"" + notation + "\"")
                    .hasMessageContaining("leased permits apply to gcra, token-bucket and fixed-window, not");
        }
        assertThatThrownBy(() -> PolicyParser.parse("limit", "10/1s leased 100ms", Algorithm.SLIDING_WINDOW))
                .hasMessageContaining("not sliding-window");
        assertThatThrownBy(() -> Policy.parse("5 concurrent leased 1s")).hasMessageContaining("not concurrency");
        assertThatThrownBy(() -> Policy.parse("10/1s leased 100ms").withAlgorithm(Algorithm.SLIDING_LOG))
                .isInstanceOf(ConfigException.class).hasMessageContaining("not sliding-log");
    }

    @Test
    void aLeaseAsLongAsTheBurstIsRefusedWithTheLongestThatFits() {
        assertThatThrownBy(() -> Policy.parse("10/1s leased 1s")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("10/1s leased 1s")
                .hasMessageContaining("a lease must be shorter than the burst lasts: 10 permits every 100ms last 1s");
        assertThat(Policy.parse("10/1s leased 900ms").capacity()).isEqualTo(1);
        assertThatThrownBy(() -> Policy.parse("10/1s burst 1 leased 1ms")).hasMessageContaining("shorter than the burst");
    }

    @Test
    void aNodesShareDoesNotLease() {
        Policy share = Policy.parse("1000/1s leased 100ms").share(4);
        assertThat(share.leasedMicros()).isZero();
        assertThat(share.capacity()).isEqualTo(250);
    }
}
