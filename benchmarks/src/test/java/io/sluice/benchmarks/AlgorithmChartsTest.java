package io.sluice.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.policy.Algorithm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The charts of docs/algorithms.md are what the algorithms do today: regenerate them when this fails (see AlgorithmCharts). */
class AlgorithmChartsTest {

    @Test
    void theCommittedChartsMatchTheAlgorithms() throws Exception {
        Path dir = Path.of("../docs/charts");
        for (Map.Entry<Algorithm, String> e : AlgorithmCharts.policies().entrySet()) {
            String expected = AlgorithmCharts.svg(e.getKey(), e.getValue(), AlgorithmCharts.shape(e.getKey(), e.getValue()));
            assertThat(Files.readString(dir.resolve(e.getKey().id() + ".svg")))
                    .as("docs/charts/%s.svg is stale: java -cp benchmarks/target/benchmarks.jar"
                            + " io.sluice.benchmarks.AlgorithmCharts docs/charts", e.getKey().id())
                    .isEqualTo(expected);
        }
    }

    @Test
    void aBucketTakesTheBurstThatAFixedWindowCannot() {
        int[][] bucket = AlgorithmCharts.shape(Algorithm.TOKEN_BUCKET, "5/1s burst 10");
        int[][] window = AlgorithmCharts.shape(Algorithm.FIXED_WINDOW, "5/1s");
        int atFiveSeconds = 10;                                   // the bar of the first burst
        assertThat(bucket[atFiveSeconds][0]).isGreaterThan(window[atFiveSeconds][0]);
    }
}
