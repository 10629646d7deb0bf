package io.sluice.benchmarks;

import java.util.concurrent.TimeUnit;
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
 * One hot key: the cost of one decision when the limiter's state is in cache. With two threads both hit the same
 * key, so the number includes contention on that key. Each contender runs in its own fork (one {@code @Param}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class SingleKeyBenchmark {

    @Param({Contenders.SLUICE_GCRA, Contenders.SLUICE_TOKEN_BUCKET, Contenders.SLUICE_FIXED_WINDOW,
            Contenders.SLUICE_SLIDING_WINDOW, Contenders.SLUICE_GCRA_KEYED_CALL, Contenders.GUAVA, Contenders.RESILIENCE4J, Contenders.BUCKET4J,
            Contenders.CLOCK_CAS})
    public String contender;

    private static final String KEY = "client-42";
    private Limiter limiter;

    @Setup
    public void setUp() {
        limiter = Contenders.single(contender);
    }

    @Benchmark
    @Threads(1)
    public boolean oneThread(Denials denials) {
        return denials.count(limiter.tryAcquire(KEY));
    }

    @Benchmark
    @Threads(2)
    public boolean twoThreads(Denials denials) {
        return denials.count(limiter.tryAcquire(KEY));
    }
}
