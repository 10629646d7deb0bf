package io.sluice.benchmarks;

import io.sluice.core.Engine;
import io.sluice.core.KeyLimiter;
import io.sluice.core.policy.Policy;
import io.sluice.core.store.MemoryStore;
import java.util.Arrays;

/**
 * How evenly threads hammering one key on the memory store's single-check path make progress: each thread calls
 * {@code tryAcquire} on the same key's handle for a few seconds, and the program prints every thread's share of the
 * decisions, the least and the most, and the slowest decision any thread saw. A waiter behind a holder on that path
 * steps aside (parks) after a few re-reads; this shows whether a thread that steps aside is starved by one that keeps
 * taking the cell. JMH's average time cannot: it adds up the decisions of all threads.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.sluice.benchmarks.HotKeyFairness [seconds-per-step]
 * </pre>
 */
public final class HotKeyFairness {

    private HotKeyFairness() {}

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        KeyLimiter key = Engine.builder().store(MemoryStore.create()).build()
                .limiter("bench", Policy.parse("1000000000/1s")).key("client-42");
        for (int threads : new int[] {2, 4, 16}) {
            long[] decisions = new long[threads];
            long[] slowest = new long[threads];
            Thread[] workers = new Thread[threads];
            long end = System.nanoTime() + seconds * 1_000_000_000L;
            for (int t = 0; t < threads; t++) {
                int id = t;
                workers[t] = new Thread(() -> {
                    long n = 0;
                    long worst = 0;
                    for (long start = System.nanoTime(); start < end; ) {
                        key.tryAcquire();
                        long now = System.nanoTime();
                        worst = Math.max(worst, now - start);
                        start = now;
                        n++;
                    }
                    decisions[id] = n;
                    slowest[id] = worst;
                });
            }
            for (Thread w : workers) {
                w.start();
            }
            for (Thread w : workers) {
                w.join();
            }
            long total = Arrays.stream(decisions).sum();
            long[] sorted = decisions.clone();
            Arrays.sort(sorted);
            System.out.printf("%2d threads: %,d decisions/s; per thread %.1f%% to %.1f%% of them (even: %.1f%%); "
                    + "slowest decision %,d µs%n", threads, total / seconds, 100.0 * sorted[0] / total,
                    100.0 * sorted[threads - 1] / total, 100.0 / threads, Arrays.stream(slowest).max().orElse(0) / 1_000);
        }
    }
}
