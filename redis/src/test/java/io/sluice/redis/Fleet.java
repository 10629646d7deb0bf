package io.sluice.redis;

import io.sluice.core.Engine;
import io.sluice.core.LeaseCounts;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import io.sluice.core.testing.ManualTimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * A fleet on one key, for the exactness tests: engines that each have their own {@link RedisStore} and connection pool
 * (as application nodes), several threads each, all hammering one key. Time is an application clock moved in phases,
 * so every admitted request is attributed to its instant exactly; within a phase all threads race.
 */
final class Fleet {

    static final int NODES = 4;
    static final int THREADS_PER_NODE = 8;
    static final int PHASES = 40;
    static final long PHASE_MICROS = 100_000;
    static final int REQUESTS_PER_THREAD_AND_PHASE = 4;

    /** What a run admitted, phase by phase, and what leased permits did on all nodes together. */
    record Run(long[] admitted, LeaseCounts leases) {
        long total() {
            long sum = 0;
            for (long a : admitted) {
                sum += a;
            }
            return sum;
        }

        /** @return the most admitted in {@code length} consecutive phases */
        long most(int length) {
            long most = 0;
            for (int start = 0; start + length <= admitted.length; start++) {
                long sum = 0;
                for (int p = start; p < start + length; p++) {
                    sum += admitted[p];
                }
                most = Math.max(most, sum);
            }
            return most;
        }
    }

    private Fleet() {}

    /** Runs {@link #PHASES} phases of {@code policy} on key "the-key" under rule {@code name}. */
    static Run hammer(String url, ExecutorService threads, Policy policy, String name) throws Exception {
        ManualTimeSource clock = new ManualTimeSource();
        List<Engine> engines = new ArrayList<>();
        List<RedisStore> stores = new ArrayList<>();
        for (int n = 0; n < NODES; n++) {
            RedisStore store = RedisStore.builder().url(url).applicationTime(true).poolSize(THREADS_PER_NODE)
                    .timeout(Duration.ofSeconds(5)).prefix("fleet").build();
            stores.add(store);
            engines.add(Engine.builder().timeSource(clock).store(store).denialCacheSize(0).build());
        }
        long[] admitted = new long[PHASES];
        try {
            for (int phase = 0; phase < PHASES; phase++) {
                for (Future<Integer> f : threads.invokeAll(phase(engines, policy, name))) {
                    admitted[phase] += f.get();
                }
                clock.advanceMicros(PHASE_MICROS);
            }
            return new Run(admitted, sum(engines));
        } finally {
            engines.forEach(Engine::close);
        }
    }

    private static List<Callable<Integer>> phase(List<Engine> engines, Policy policy, String name) {
        List<Callable<Integer>> tasks = new ArrayList<>();
        for (Engine engine : engines) {
            for (int t = 0; t < THREADS_PER_NODE; t++) {
                tasks.add(() -> {
                    int ok = 0;
                    for (int r = 0; r < REQUESTS_PER_THREAD_AND_PHASE; r++) {
                        Outcome o = engine.tryAcquire(name, "the-key", policy, 1);
                        ok += o.allowed() ? 1 : 0;
                    }
                    return ok;
                });
            }
        }
        return tasks;
    }

    private static LeaseCounts sum(List<Engine> engines) {
        long[] s = new long[5];
        for (Engine e : engines) {
            LeaseCounts c = e.leaseCounts();
            s[0] += c.leasedDecisions();
            s[1] += c.storeDecisions();
            s[2] += c.takes();
            s[3] += c.permitsTaken();
            s[4] += c.permitsLapsed();
        }
        return new LeaseCounts(s[0], s[1], s[2], s[3], s[4]);
    }
}
