package io.sluice.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Runs every benchmarked call a few times, without JMH: the benchmarks measure what they claim to. */
class ContendersTest {

    private static final List<String> LIMITERS = List.of(Contenders.SLUICE_GCRA, Contenders.SLUICE_TOKEN_BUCKET,
            Contenders.SLUICE_FIXED_WINDOW, Contenders.SLUICE_SLIDING_WINDOW, Contenders.GUAVA,
            Contenders.RESILIENCE4J, Contenders.BUCKET4J);

    @Test
    void everySingleKeyContenderAllowsABurstOfCalls() {
        List<String> single = new java.util.ArrayList<>(LIMITERS);
        single.add(Contenders.SLUICE_GCRA_KEYED_CALL);
        single.add(Contenders.CLOCK_CAS);
        for (String name : single) {
            Limiter limiter = Contenders.single(name);
            for (int i = 0; i < 1_000; i++) {
                assertThat(limiter.tryAcquire("client-42")).as(name + " call " + i).isTrue();
            }
        }
    }

    @Test
    void everyKeyedContenderTracksEveryKeyAndAllowsItsCalls() {
        String[] keys = Keys.distinct(1_000);
        for (String name : List.of(Contenders.SLUICE_GCRA, Contenders.GUAVA, Contenders.GUAVA_CAFFEINE,
                Contenders.BUCKET4J_CAFFEINE, Contenders.MAP_LOOKUP, Contenders.ARRAY_OF_CELLS,
                Contenders.INLINE_TABLE)) {
            Limiter limiter = Contenders.keyed(name, keys);
            for (String key : keys) {
                assertThat(limiter.tryAcquire(key)).as(name + " " + key).isTrue();
            }
        }
    }

    @Test
    void theKeyedFloorAllowsEveryKeyAndDeniesPastItsBurst() {
        String[] keys = Keys.distinct(1_000);
        Limiter floor = Contenders.keyed(Contenders.MAP_CLOCK_CAS, keys);
        for (String key : keys) {
            assertThat(floor.tryAcquire(key)).as(key).isTrue();
        }
        Contenders.CasCell cell = new Contenders.CasCell(1_000, 10_000);
        long now = 5_000_000_000L;
        int admitted = 0;
        while (cell.acquire(now) && admitted <= 100) {
            admitted++;
        }
        assertThat(admitted).as("a burst of tolerance/interval, then no more at the same instant").isEqualTo(10);
        assertThat(cell.acquire(now + 1_000)).as("one interval later, one more").isTrue();
        assertThat(cell.acquire(now + 1_000)).isFalse();
    }

    @Test
    void keyedContendersAllowEveryKeyAfterTheFill() {
        String[] keys = Keys.distinct(100);
        for (String name : LIMITERS) {
            Limiter limiter = Contenders.keyed(name, keys);
            assertThat(limiter.tryAcquire(keys[7])).as(name).isTrue();
        }
    }

    @Test
    void randomKeyIndexesStayInRangeAndCoverTheKeys() {
        boolean[] seen = new boolean[100];
        long random = 0x9E3779B97F4A7C15L;
        for (int i = 0; i < 10_000; i++) {
            random = Keys.next(random);
            seen[Keys.index(random, seen.length)] = true;
        }
        for (int i = 0; i < seen.length; i++) {
            assertThat(seen[i]).as("index " + i).isTrue();
        }
    }

    @Test
    void theMemoryProbeTracksEveryKeyItAdds() {
        for (String name : List.of(Contenders.SLUICE_GCRA, Contenders.BUCKET4J, Contenders.MAP_LOOKUP)) {
            MemoryPerKey.Filler filler = MemoryPerKey.filler(name);
            for (int i = 0; i < 10; i++) {
                filler.track("client-" + i);
            }
            filler.check(10);
        }
    }
}
