package io.sluice.benchmarks;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@value Keys#COUNT} distinct keys, each call for a uniformly random one: the cost of one decision when the key's
 * state is most likely not in cache (the working set is far larger than L2). Every key is tracked before the first
 * iteration, so the numbers are steady state, not first sight of a key. The keyed peers hold their limiters in an
 * unbounded map ({@code guava}, {@code resilience4j}, {@code bucket4j}) or in a Caffeine cache with the bound of
 * Sluice's memory store ({@code guava-caffeine}, {@code bucket4j-caffeine}). {@code map-lookup} is the floor: a bare
 * {@code ConcurrentHashMap.get} of the same keys; {@code map-clock-cas} is the floor of a thread-safe keyed limiter (a
 * lookup, a clock read and one compare-and-set per call: {@link Contenders#MAP_CLOCK_CAS}). Two layout experiments,
 * {@code array-of-cells} and {@code inline-table}, ask what layout the keyed target needs ({@link
 * Contenders#ARRAY_OF_CELLS}, {@link Contenders#INLINE_TABLE}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class KeyedBenchmark {

    @Param({Contenders.SLUICE_GCRA, Contenders.SLUICE_TOKEN_BUCKET, Contenders.SLUICE_FIXED_WINDOW,
            Contenders.SLUICE_SLIDING_WINDOW, Contenders.GUAVA, Contenders.RESILIENCE4J, Contenders.BUCKET4J,
            Contenders.GUAVA_CAFFEINE, Contenders.BUCKET4J_CAFFEINE, Contenders.MAP_LOOKUP,
            Contenders.MAP_CLOCK_CAS, Contenders.ARRAY_OF_CELLS, Contenders.INLINE_TABLE})
    public String contender;

    private String[] keys;
    private Limiter limiter;

    @Setup
    public void setUp() {
        keys = Keys.distinct(Keys.COUNT);
        limiter = Contenders.keyed(contender, keys);
    }

    /** Each thread draws keys from its own xorshift sequence. */
    @State(Scope.Thread)
    public static class Cursor {
        private static final AtomicLong SEEDS = new AtomicLong(0x9E3779B97F4A7C15L);
        long random;

        @Setup
        public void seed() {
            random = SEEDS.getAndAdd(0x632BE59BD9B4E019L) | 1;
        }

        String next(String[] keys) {
            random = Keys.next(random);
            return keys[Keys.index(random, keys.length)];
        }
    }

    @Benchmark
    @Threads(1)
    public boolean oneThread(Cursor cursor, Denials denials) {
        return denials.count(limiter.tryAcquire(cursor.next(keys)));
    }

    @Benchmark
    @Threads(2)
    public boolean twoThreads(Cursor cursor, Denials denials) {
        return denials.count(limiter.tryAcquire(cursor.next(keys)));
    }
}
