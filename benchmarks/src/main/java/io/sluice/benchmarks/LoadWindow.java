package io.sluice.benchmarks;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One round of a load benchmark ({@link RedisLoad}, {@link ClusterLoad}): threads call a contender, a second's warm-up,
 * then {@code seconds} measured, between the caller's two looks at the servers' counters.
 *
 * @param total calls made while measuring
 * @param elapsedNanos the measured time
 * @param clientCpuNanos this JVM's CPU time while measuring
 * @param latencies the measured calls' times, sorted, ns
 * @param kernel of that CPU time, the kernel's, and the threads' context switches while measuring
 */
record LoadWindow(long total, long elapsedNanos, long clientCpuNanos, long[] latencies, ProcessTimes kernel) {

    /** A look at the servers: before (after a reset) and after the measured seconds. */
    interface Look {
        void run() throws Exception;
    }

    /**
     * @param keys the keys to call on at random; null for one hot key
     * @param before run after the warm-up, just before measuring (reset and read the servers' counters)
     * @param after run just after measuring, before the threads stop
     */
    static LoadWindow measure(RedisLoad.Call call, int threads, int seconds, String[] keys, Look before, Look after)
            throws Exception {
        AtomicBoolean measuring = new AtomicBoolean(false);
        AtomicBoolean running = new AtomicBoolean(true);
        long[][] samples = new long[threads][];
        long[] counts = new long[threads];
        CountDownLatch done = new CountDownLatch(threads);
        for (int t = 0; t < threads; t++) {
            Thread thread = new Thread(caller(t, call, keys, measuring, running, samples, counts, done));
            thread.setDaemon(true);
            thread.start();
        }
        Thread.sleep(1_000);                                     // warm-up
        before.run();
        long cpu = processCpuNanos();
        ProcessTimes times = ProcessTimes.now();
        long start = System.nanoTime();
        measuring.set(true);
        Thread.sleep(seconds * 1_000L);
        measuring.set(false);
        long elapsed = System.nanoTime() - start;
        long clientCpu = processCpuNanos() - cpu;
        ProcessTimes kernel = ProcessTimes.now().since(times);
        after.run();
        running.set(false);
        done.await();
        long[] all = Arrays.stream(samples).flatMapToLong(Arrays::stream).sorted().toArray();
        return new LoadWindow(Arrays.stream(counts).sum(), elapsed, clientCpu, all, kernel);
    }

    /** @return calls per second while measuring */
    double perSecond() {
        return total * 1e9 / elapsedNanos;
    }

    /** @return the latency at {@code quantile} (0.5, 0.99), µs */
    double micros(double quantile) {
        return latencies.length == 0 ? 0 : latencies[(int) (latencies.length * quantile)] / 1000.0;
    }

    private static long processCpuNanos() {
        return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /** One load thread: calls until stopped, counting and timing the calls made while measuring. */
    private static Runnable caller(int id, RedisLoad.Call call, String[] keys, AtomicBoolean measuring,
            AtomicBoolean running, long[][] samples, long[] counts, CountDownLatch done) {
        return () -> {
            long[] lat = new long[1 << 17];      // a thread's first 131,072 calls: enough for a quantile
            int n = 0;
            long count = 0;
            try {
                while (running.get()) {
                    String key = keys == null ? "hot" : keys[ThreadLocalRandom.current().nextInt(keys.length)];
                    long start = System.nanoTime();
                    call.run(key);
                    long took = System.nanoTime() - start;
                    if (measuring.get()) {
                        count++;
                        if (n < lat.length) {
                            lat[n++] = took;
                        }
                    }
                }
            } catch (Exception e) {
                e.printStackTrace();
            } finally {
                samples[id] = Arrays.copyOf(lat, n);
                counts[id] = count;
                done.countDown();
            }
        };
    }
}
