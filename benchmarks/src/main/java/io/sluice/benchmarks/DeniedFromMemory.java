package io.sluice.benchmarks;

import io.sluice.core.Engine;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import io.sluice.core.testing.RedisProcess;
import io.sluice.redis.RedisStore;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A hot key denied from memory (issue 31): an engine on a real {@code redis-server}, one key over its limit for an
 * hour, every call answered by the denial cache without a store call, with coalescing on and off. The two must cost
 * the same: a request that never reaches Redis pays nothing for how Redis would be called. Each {@code coalesce} runs
 * in its own fork; compare them within one run.
 *
 * <p>{@code java -jar benchmarks/target/benchmarks.jar DeniedFromMemory -f 1 -wi 3 -w 1s -i 5 -r 1s}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class DeniedFromMemory {

    /** Whether the store coalesces its calls. */
    @Param({"true", "false"})
    public boolean coalesce;

    private static final String KEY = "client-42";
    private static final Policy POLICY = Policy.parse("1/1h");

    private RedisProcess redis;
    private Engine engine;

    @Setup
    public void setUp() throws Exception {
        String url = RedisProcess.external();
        if (url == null) {
            redis = RedisProcess.start();
            url = redis.url();
        }
        RedisStore store = RedisStore.builder().url(url).coalesce(coalesce).build();
        engine = Engine.builder().store(store).build();
        engine.reset("denied", KEY);
        if (!engine.tryAcquire("denied", KEY, POLICY, 1).allowed()
                || engine.tryAcquire("denied", KEY, POLICY, 1).allowed()) {
            throw new IllegalStateException("expected the key admitted once, then denied");
        }
    }

    @TearDown
    public void tearDown() throws Exception {
        engine.close();
        if (redis != null) {
            redis.close();
        }
    }

    @Benchmark
    @Threads(1)
    public Outcome oneThread() {
        return denied();
    }

    @Benchmark
    @Threads(2)
    public Outcome twoThreads() {
        return denied();
    }

    private Outcome denied() {
        Outcome o = engine.tryAcquire("denied", KEY, POLICY, 1);
        if (o.allowed()) {
            throw new IllegalStateException("the key was admitted: not the path this measures");
        }
        return o;
    }
}
