package io.sluice.benchmarks;

import com.google.common.util.concurrent.RateLimiter;
import io.github.bucket4j.Bucket;
import io.sluice.core.policy.Policy;
import io.sluice.core.store.Check;
import io.sluice.core.store.MemoryStore;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.ref.Reference;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Heap retained per tracked key: fills an empty store (or a map of peer limiters) with {@value Keys#COUNT} keys and
 * compares the used heap after a full GC before and after. The key strings are built during the fill, so each
 * key's string is counted, as it is in a server where the key comes from the request. Prints the median and the
 * range of {@value #RUNS} runs per contender. Sluice's policy here is {@code 1000/1h}, so that every state is still
 * meaningful when the heap is measured (with the benchmarks' 1e9/s a state expires within microseconds).
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar io.sluice.benchmarks.MemoryPerKey [contender...]}
 */
public final class MemoryPerKey {

    static final int RUNS = 5;
    private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

    private MemoryPerKey() {}

    public static void main(String[] args) {
        List<String> names = args.length > 0 ? List.of(args) : List.of(Contenders.SLUICE_GCRA,
                Contenders.SLUICE_TOKEN_BUCKET, Contenders.SLUICE_FIXED_WINDOW, Contenders.SLUICE_SLIDING_WINDOW,
                Contenders.GUAVA, Contenders.RESILIENCE4J, Contenders.BUCKET4J, Contenders.MAP_LOOKUP);
        System.out.printf("%-22s %14s %18s%n", "contender", "bytes/key", "range of " + RUNS + " runs");
        for (String name : names) {
            measure(name, 1);                             // warm up class loading and the JIT
            long[] perKey = new long[RUNS];
            for (int r = 0; r < RUNS; r++) {
                perKey[r] = measure(name, Keys.COUNT);
            }
            Arrays.sort(perKey);
            System.out.printf("%-22s %14d %8d .. %7d%n", name, perKey[RUNS / 2], perKey[0], perKey[RUNS - 1]);
        }
    }

    /** @return bytes retained per key after tracking {@code count} fresh keys */
    static long measure(String name, int count) {
        Filler filler = filler(name);
        long before = usedAfterGc();
        for (int i = 0; i < count; i++) {
            filler.track("client-" + i);
        }
        long after = usedAfterGc();
        filler.check(count);
        Reference.reachabilityFence(filler);
        return Math.round((after - before) / (double) count);
    }

    /** Something that tracks keys; check() fails when fewer keys are tracked than were added. */
    interface Filler {
        void track(String key);

        void check(int expected);
    }

    static Filler filler(String name) {
        return switch (name) {
            case Contenders.SLUICE_GCRA, Contenders.SLUICE_TOKEN_BUCKET, Contenders.SLUICE_FIXED_WINDOW,
                    Contenders.SLUICE_SLIDING_WINDOW -> sluice(Contenders.algorithm(name));
            case Contenders.GUAVA -> map(k -> Contenders.guava(), RateLimiter::tryAcquire);
            case Contenders.RESILIENCE4J -> map(Contenders::resilience4j,
                    io.github.resilience4j.ratelimiter.RateLimiter::acquirePermission);
            case Contenders.BUCKET4J -> map(k -> Contenders.bucket4j(), (Bucket b) -> b.tryConsume(1));
            case Contenders.MAP_LOOKUP -> map(k -> Boolean.TRUE, b -> true);
            default -> throw new IllegalArgumentException("unknown contender " + name);
        };
    }

    private static Filler sluice(io.sluice.core.policy.Algorithm algorithm) {
        // 1000/1h, not the benchmarks' 1e9/s: a state must stay meaningful (not expire) while it is measured
        Policy policy = Policy.of(algorithm, 1_000, Duration.ofHours(1));
        MemoryStore store = MemoryStore.create();
        return new Filler() {
            @Override
            public void track(String key) {
                store.evaluate(List.of(Check.of("bench", key, policy, 1)), System.currentTimeMillis() * 1_000);
            }

            @Override
            public void check(int expected) {
                if (store.trackedKeys() != expected) {
                    throw new IllegalStateException(algorithm + ": tracks " + store.trackedKeys() + " keys, not " + expected);
                }
            }
        };
    }

    private static <L> Filler map(Function<String, L> create, java.util.function.Predicate<L> acquire) {
        Map<String, L> limiters = new ConcurrentHashMap<>();
        return new Filler() {
            @Override
            public void track(String key) {
                acquire.test(limiters.computeIfAbsent(key, create));
            }

            @Override
            public void check(int expected) {
                if (limiters.size() != expected) {
                    throw new IllegalStateException("tracks " + limiters.size() + " keys, not " + expected);
                }
            }
        };
    }

    private static long usedAfterGc() {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {                    // a second full GC can still free what a finalizer let go
            System.gc();
            used = Math.min(used, MEMORY.getHeapMemoryUsage().getUsed());
        }
        return used;
    }
}
