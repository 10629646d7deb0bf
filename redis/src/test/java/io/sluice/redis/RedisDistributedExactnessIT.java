package io.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.store.Check;
import io.sluice.core.policy.Algorithm;
import io.sluice.core.Engine;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import io.sluice.core.Rule;
import io.sluice.core.request.RequestView;
import io.sluice.core.Decision;
import io.sluice.core.testing.ManualTimeSource;
import io.sluice.core.testing.RedisProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A fleet on one key ({@link Fleet}): 4 engines, each with its own {@link RedisStore} and connection pool (as 4
 * application nodes), 8 threads each, all hammering one key. Time is an application clock the test moves in phases of
 * 100 ms, so every admitted request is attributed to its instant exactly; within a phase all 32 threads race.
 */
class RedisDistributedExactnessIT {

    private static final int NODES = Fleet.NODES;
    private static final int THREADS_PER_NODE = Fleet.THREADS_PER_NODE;
    private static final int PHASES = Fleet.PHASES;

    private static RedisProcess redis;
    private static ExecutorService threads;

    @BeforeAll
    static void start() throws Exception {
        redis = RedisProcess.start();
        threads = Executors.newFixedThreadPool(NODES * THREADS_PER_NODE);
    }

    @AfterAll
    static void stop() throws Exception {
        threads.shutdownNow();
        redis.close();
    }

    /** Admitted cost per phase, for one policy. */
    private static long[] hammer(Policy policy, String name) throws Exception {
        return Fleet.hammer(redis.url(), threads, policy, name).admitted();
    }

    @Test
    void fixedWindowAdmitsExactlyTheLimitInEveryWindow() throws Exception {
        long[] admitted = hammer(Policy.parse("25/1s").withAlgorithm(Algorithm.FIXED_WINDOW), "fw");
        for (int window = 0; window < PHASES / 10; window++) {
            long sum = 0;
            for (int p = window * 10; p < window * 10 + 10; p++) {
                sum += admitted[p];
            }
            assertThat(sum).as("window %d", window).isEqualTo(25);
        }
    }

    @Test
    void slidingLogAdmitsExactlyTheLimitInEverySlidingSecond() throws Exception {
        long[] admitted = hammer(Policy.parse("25/1s min-interval 0s"), "log");
        for (int start = 0; start + 10 <= PHASES; start++) {
            long sum = 0;
            for (int p = start; p < start + 10; p++) {
                sum += admitted[p];
            }
            assertThat(sum).as("the second starting at phase %d", start).isEqualTo(25);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"GCRA", "TOKEN_BUCKET", "LEAKY_BUCKET"})
    void bucketsAdmitTheBurstThenExactlyTheRate(Algorithm algorithm) throws Exception {
        // 20 per second, burst 5: interval 50 ms, two permits per 100 ms phase once the burst is spent
        long[] admitted = hammer(Policy.parse("20/1s burst 5").withAlgorithm(algorithm), algorithm.id());
        assertThat(admitted[0]).as("the burst").isEqualTo(5);
        for (int p = 1; p < PHASES; p++) {
            assertThat(admitted[p]).as("phase %d", p).isEqualTo(2);
        }
    }

    @Test
    void warmUpNeverAdmitsMoreThanTheStableRate() throws Exception {
        long[] admitted = hammer(Policy.parse("20/1s warm-up 1s"), "warm");
        long total = 0;
        for (int i = 0; i < PHASES; i++) {
            long sum = 0;
            for (int j = i; j < PHASES; j++) {
                sum += admitted[j];
                // every permit costs at least the stable 50 ms; the first of a run passes at once ("pay later")
                assertThat(sum).as("phases %d..%d", i, j).isLessThanOrEqualTo(2L * (j - i + 1) + 1);
            }
            total += admitted[i];
        }
        assertThat(total).as("slower than stable while it warms up").isLessThan(2L * PHASES);
        for (int p = 0; p + 1 < PHASES; p++) {
            // one request passes at the first instant its predecessor's wait has ended: never starved
            assertThat(admitted[p] + admitted[p + 1]).as("phases %d and %d", p, p + 1).isPositive();
        }
    }

    @Test
    void slidingWindowCounterStaysWithinItsDocumentedError() throws Exception {
        long[] admitted = hammer(Policy.parse("25/1s").withAlgorithm(Algorithm.SLIDING_WINDOW), "swc");
        for (int window = 0; window < PHASES / 10; window++) {
            long sum = 0;
            for (int p = window * 10; p < window * 10 + 10; p++) {
                sum += admitted[p];
            }
            assertThat(sum).as("aligned window %d", window).isLessThanOrEqualTo(25);
        }
        for (int start = 0; start + 10 <= PHASES; start++) {
            long sum = 0;
            for (int p = start; p < start + 10; p++) {
                sum += admitted[p];
            }
            assertThat(sum).as("any second: at most twice the limit").isLessThanOrEqualTo(50);
        }
    }

    @Test
    void concurrencyNeverHasMoreThanTheLimitInFlightAcrossTheFleet() throws Exception {
        Policy five = Policy.parse("5 concurrent");
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicInteger admitted = new AtomicInteger();
        List<Engine> engines = new ArrayList<>();
        List<RedisStore> stores = new ArrayList<>();
        for (int n = 0; n < NODES; n++) {
            RedisStore store = RedisStore.builder().url(redis.url()).poolSize(THREADS_PER_NODE)
                    .timeout(Duration.ofSeconds(5)).prefix("fleet-c").build();
            stores.add(store);
            engines.add(Engine.builder().store(store).denialCacheSize(0)
                    .rule(Rule.builder("c").policy(five).key(r -> "the-key").build()).build());
        }
        RequestView request = RequestView.builder("GET", "/").remoteAddress("10.0.0.1").build();
        List<Callable<Void>> tasks = new ArrayList<>();
        for (Engine engine : engines) {
            for (int t = 0; t < THREADS_PER_NODE; t++) {
                tasks.add(() -> {
                    for (int r = 0; r < 50; r++) {
                        Decision d = engine.check(request);
                        if (d.allowed()) {
                            admitted.incrementAndGet();
                            int now = inFlight.incrementAndGet();
                            most.accumulateAndGet(now, Math::max);
                            inFlight.decrementAndGet();
                            engine.release(d);
                        }
                    }
                    return null;
                });
            }
        }
        for (Future<Void> f : threads.invokeAll(tasks)) {
            f.get();
        }
        stores.forEach(RedisStore::close);
        assertThat(most.get()).isLessThanOrEqualTo(5);
        assertThat(admitted.get()).as("leases are released and taken again").isGreaterThan(5);
    }

    @Test
    void aRequestDeniedByItsSecondRuleLeavesItsFirstRuleUnchanged() {
        try (RedisStore store = RedisStore.builder().url(redis.url()).applicationTime(true).prefix("aon").build()) {
            long now = ManualTimeSource.START_MICROS;
            Policy loose = Policy.parse("10/1m");
            Policy shut = Policy.parse("1/1m");
            store.evaluate(List.of(Check.of("shut", "k", shut, 1)), now);
            for (Algorithm a : List.of(Algorithm.FIXED_WINDOW, Algorithm.SLIDING_WINDOW, Algorithm.SLIDING_LOG,
                    Algorithm.TOKEN_BUCKET, Algorithm.LEAKY_BUCKET, Algorithm.GCRA, Algorithm.WARM_UP)) {
                Policy first = Policy.of(a, 10, Duration.ofMinutes(1));
                Outcome before = store.evaluate(List.of(Check.of(a.id(), "k", first, 0)), now).get(0);
                List<Outcome> denied = store.evaluate(List.of(Check.of(a.id(), "k", first, 1), Check.of("shut", "k", shut, 1)), now);
                assertThat(denied.get(1).allowed()).isFalse();
                Outcome after = store.evaluate(List.of(Check.of(a.id(), "k", first, 0)), now).get(0);
                assertThat(after).as(a.id()).isEqualTo(before);
            }
            assertThat(loose.limit()).isEqualTo(10);
        }
    }
}
