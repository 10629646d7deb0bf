package io.sluice.benchmarks;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.Decision;
import io.sluice.core.Engine;
import io.sluice.core.policy.Policy;
import io.sluice.core.request.RequestView;
import io.sluice.core.Rule;
import io.sluice.core.policy.PolicyParser;
import io.sluice.core.store.MemoryStore;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * One key under more threads than cores: every request carries two rules on the same key, a sliding log (a large one
 * by default, {@code 10000/1s}, whose demand stays above its limit) and a GCRA no load reaches, so each decision takes
 * the memory store's multi-check path and locks the log's cell. The denial cache is off, so every request reaches the
 * store. It runs 1, 2, 4, 8 and 16 threads in turn and prints decisions per second, the requests admitted (the log
 * must admit its limit per second and no more) and the slowest decision any thread saw. A cell lock that served
 * waiting threads badly when its holder is preempted would show as throughput falling, or the slowest decision
 * growing, with the thread count.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.sluice.benchmarks.ContendedKey [log-limit] [seconds-per-step]
 * </pre>
 */
public final class ContendedKey {

    private ContendedKey() {}

    public static void main(String[] args) throws Exception {
        String log = args.length > 0 ? args[0] : "10000/1s";
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        Engine engine = Engine.builder().store(MemoryStore.create()).rules(List.of(
                Rule.builder("log").policy(PolicyParser.parse("limit", log, Algorithm.SLIDING_LOG)).key(r -> "k")
                        .denialCache(false).build(),
                Rule.builder("rate").policy(Policy.parse("1000000000/1s")).key(r -> "k").build())).build();
        RequestView request = RequestView.builder("GET", "/").remoteAddress("192.0.2.1").build();
        for (int threads : new int[] {1, 2, 4, 8, 16}) {
            step(engine, request, log, threads, seconds);
        }
    }

    /** {@code threads} threads deciding the same request for {@code seconds}: decisions and admissions per second. */
    private static void step(Engine engine, RequestView request, String log, int threads, int seconds)
            throws InterruptedException {
        LongAdder decisions = new LongAdder();
        LongAdder allowed = new LongAdder();
        long[] slowest = new long[threads];
        Thread[] workers = new Thread[threads];
        long t0 = System.nanoTime();
        long end = t0 + seconds * 1_000_000_000L;
        for (int t = 0; t < threads; t++) {
            int id = t;
            workers[t] = new Thread(() -> {
                for (long start = System.nanoTime(); start < end; start = System.nanoTime()) {
                    Decision d = engine.check(request);
                    slowest[id] = Math.max(slowest[id], System.nanoTime() - start);
                    decisions.increment();
                    if (d.allowed()) {
                        allowed.increment();
                    }
                }
            });
        }
        for (Thread w : workers) {
            w.start();
        }
        for (Thread w : workers) {
            w.join();               // each worker stops at the step's end by itself
        }
        double elapsed = (System.nanoTime() - t0) / 1e9;
        long worst = 0;
        for (long s : slowest) {
            worst = Math.max(worst, s);
        }
        System.out.printf("%s, %2d threads: %,.0f decisions/s, %,.0f admitted/s, slowest decision %,d µs%n", log,
                threads, decisions.sum() / elapsed, allowed.sum() / elapsed, worst / 1000);
    }
}
