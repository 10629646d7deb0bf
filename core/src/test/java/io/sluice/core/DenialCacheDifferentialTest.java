package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.testing.EngineDifferential;
import io.sluice.core.testing.EngineDifferential.Candidate;
import io.sluice.core.testing.EngineDifferential.Clock;
import io.sluice.core.testing.ForwardingStore;
import io.sluice.core.testing.ManualTimeSource;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The denial cache never changes an answer (issue 30): seeded random timelines of every algorithm, of mixed costs,
 * on a clock that moves forwards or also steps back, through engines with the cache on, against the engine of
 * reference with it off. One engine goes through the cache to a memory store that is not one (the path a Redis
 * store takes), one to the memory store itself (whose rules take the cache too). {@code RedisClockDifferentialIT}
 * runs the same timelines against Redis.
 */
class DenialCacheDifferentialTest {

    static Stream<Arguments> everyAlgorithmAndClock() {
        return Arrays.stream(Algorithm.values())
                .flatMap(a -> Arrays.stream(Clock.values()).map(c -> Arguments.of(a, c)));
    }

    @ParameterizedTest
    @MethodSource("everyAlgorithmAndClock")
    void theDenialCacheAnswersAsTheStoreDoes(Algorithm algorithm, Clock clock) {
        ManualTimeSource time = new ManualTimeSource();
        try (Engine reference = Engine.builder().timeSource(time).denialCacheSize(0).build();
                Engine general = Engine.builder().timeSource(time)
                        .store(new ForwardingStore(MemoryStore.builder().timeSource(time).build())).build();
                Engine memory = Engine.builder().timeSource(time).build()) {
            EngineDifferential timelines = new EngineDifferential(EngineDifferential.seed(), time, reference,
                    List.of(new Candidate("the denial cache before a store", general),
                            new Candidate("the denial cache before the memory store", memory)));
            for (int timeline = 0; timeline < 12; timeline++) {
                timelines.replay(algorithm, "t" + timeline, 300, clock);
            }
            assertThat(timelines.denials()).as("denials among %d requests", timelines.requests()).isPositive();
        }
    }
}
