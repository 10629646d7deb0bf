package io.sluice.benchmarks;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
 * How fast can any thread-safe keyed limiter be here? The same {@value Keys#COUNT} keys and random draws as
 * {@link KeyedBenchmark}, with a contender that does the least such a limiter must: one {@link ConcurrentHashMap}
 * lookup, one clock read ({@code System.nanoTime}) and one compare-and-set of a GCRA time in a per-key cell — no
 * bound on the number of keys, no expiry, no outcome numbers. Beside it, in the same run, the fastest keyed peer
 * (Guava) and Sluice's GCRA, so the keyed target ("2x the fastest peer") can be read against this floor.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class KeyedFloorBenchmark {

    /** The floor contender: map lookup, clock read, one compare-and-set. */
    static final String CAS_FLOOR = "map-clock-cas";

    @Param({Contenders.GUAVA, Contenders.SLUICE_GCRA, CAS_FLOOR})
    public String contender;

    private String[] keys;
    private Limiter limiter;

    @Setup
    public void setUp() {
        keys = Keys.distinct(Keys.COUNT);
        limiter = contender.equals(CAS_FLOOR) ? floor() : Contenders.keyed(contender, keys);
        for (String k : keys) {
            limiter.tryAcquire(k);
        }
    }

    /** GCRA at {@link Contenders#LIMIT_PER_SECOND}, burst equal to the limit, as every contender's policy. */
    static Limiter floor() {
        Map<String, Cell> cells = new ConcurrentHashMap<>();
        return k -> {
            Cell cell = cells.get(k);
            if (cell == null) {
                cell = cells.computeIfAbsent(k, x -> new Cell(1, 1_000_000_000L));   // 10^9/s, one second of burst
            }
            return cell.acquire(System.nanoTime());
        };
    }

    /** One key's theoretical arrival time, in nanoseconds, moved by compare-and-set. */
    static final class Cell {
        private static final VarHandle TAT;

        static {
            try {
                TAT = MethodHandles.lookup().findVarHandle(Cell.class, "tat", long.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private final long intervalNanos;
        private final long toleranceNanos;
        private volatile long tat = Long.MIN_VALUE / 2;

        Cell(long intervalNanos, long toleranceNanos) {
            this.intervalNanos = intervalNanos;
            this.toleranceNanos = toleranceNanos;
        }

        boolean acquire(long now) {
            while (true) {
                long old = tat;
                long next = Math.max(old, now) + intervalNanos;
                if (next - toleranceNanos > now) {
                    return false;
                }
                if (TAT.compareAndSet(this, old, next)) {
                    return true;
                }
            }
        }
    }

    @Benchmark
    @Threads(1)
    public boolean oneThread(KeyedBenchmark.Cursor cursor, Denials denials) {
        return denials.count(limiter.tryAcquire(cursor.next(keys)));
    }

    @Benchmark
    @Threads(2)
    public boolean twoThreads(KeyedBenchmark.Cursor cursor, Denials denials) {
        return denials.count(limiter.tryAcquire(cursor.next(keys)));
    }
}
