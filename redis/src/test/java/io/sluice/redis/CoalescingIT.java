package io.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import io.sluice.core.policy.PolicyParser;
import io.sluice.core.store.Check;
import io.sluice.core.store.Lease;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.store.StoreException;
import io.sluice.core.testing.ManualTimeSource;
import io.sluice.core.testing.RedisProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;

/**
 * Coalesced calls ({@link Coalescer}): the script's batch mode decides its requests one after the other exactly as the
 * memory store decides them in that order (keys shared between requests of one batch included), on every Redis the
 * tests can start; requests of many threads on one hot key are sent together and admitted to the last permit; a lone
 * request goes out alone; a failed batch answers every request it carried.
 */
class CoalescingIT {

    private record Server(String version, RedisStore store, String prefix) {}

    private static final List<RedisProcess> started = new ArrayList<>();
    private static final List<Server> servers = new ArrayList<>();

    @BeforeAll
    static void startRedis() throws Exception {
        for (String url : RedisProcess.everyVersion(started)) {
            String prefix = "batch-" + System.nanoTime();
            servers.add(new Server(RedisProcess.version(url), RedisStore.builder().url(url).applicationTime(true)
                    .prefix(prefix).timeout(Duration.ofSeconds(5)).build(), prefix));
        }
    }

    @AfterAll
    static void stopRedis() throws Exception {
        for (Server server : servers) {
            server.store().close();
        }
        for (RedisProcess redis : started) {
            redis.close();
        }
    }

    static Stream<Algorithm> algorithms() {
        return RedisDifferentialIT.STORED.stream();
    }

    /**
     * Groups of one to eight requests at one instant, over two keys, so that most groups touch a key twice: the batch
     * must see each request's writes before the next request reads, and keep each request all-or-nothing.
     */
    @ParameterizedTest
    @MethodSource("algorithms")
    void aBatchDecidesItsRequestsOneAfterTheOtherAsTheMemoryStoreDoes(Algorithm algorithm) {
        long seed = Long.getLong("sluice.seed", System.nanoTime());
        for (Server server : servers) {
            Random random = new Random(seed);
            for (int timeline = 0; timeline < 4; timeline++) {
                replay(server, random, seed, timeline, algorithm);
            }
        }
    }

    private static void replay(Server server, Random random, long seed, int timeline, Algorithm main) {
        ManualTimeSource clock = new ManualTimeSource();
        MemoryStore memory = MemoryStore.builder().timeSource(clock).build();
        List<Policy> policies = List.of(RedisDifferentialIT.policy(random, main),
                RedisDifferentialIT.policy(random, RedisDifferentialIT.STORED.get(random.nextInt(RedisDifferentialIT.STORED.size()))));
        String rules = main.id() + "-t" + timeline + "-";
        long now = ManualTimeSource.START_MICROS + random.nextInt(1_000_000_000);
        List<List<Lease>> held = new ArrayList<>();
        for (int step = 0; step < 60; step++) {
            now += random.nextInt(4) == 0 ? policies.get(0).periodMicros() / 3 : random.nextInt(50_000);
            clock.set(now);
            if (!held.isEmpty() && random.nextInt(3) == 0) {
                List<Lease> leases = held.remove(random.nextInt(held.size()));
                memory.release(leases, now);
                server.store().release(leases, now);
            }
            List<List<Check>> batch = new ArrayList<>();
            List<List<Outcome>> expected = new ArrayList<>();
            int size = 1 + random.nextInt(8);
            long[] times = new long[size];
            for (int r = 0; r < size; r++) {
                // each request its own time, as threads that queued at different instants (a clock may go back)
                times[r] = now + random.nextInt(3_000) - (random.nextInt(10) == 0 ? 5_000 : 0);
                clock.set(times[r]);
                List<Check> checks = request(random, policies, rules, timeline + "-" + step + "-" + r);
                batch.add(checks);
                expected.add(memory.evaluate(checks, times[r]));
                held.addAll(leases(checks, expected.get(expected.size() - 1)));
            }
            List<List<Outcome>> actual = server.store().evaluateTogether(batch, times);
            assertThat(actual).as("Redis %s, seed %d (-Dsluice.seed=%d), timeline %d, step %d: %s", server.version(),
                    seed, seed, timeline, step, batch).isEqualTo(expected);
        }
    }

    private static List<Check> request(Random random, List<Policy> policies, String rules, String id) {
        String key = random.nextBoolean() ? "a" : "b";
        List<Check> checks = new ArrayList<>();
        for (int r = 0; r < policies.size(); r++) {
            if (r > 0 && random.nextBoolean()) {
                continue;
            }
            Policy p = policies.get(r);
            String lease = p.algorithm() == Algorithm.CONCURRENCY ? "lease-" + rules + id : null;
            checks.add(new Check(rules + r, key, p, RedisDifferentialIT.cost(random, p), r > 0 && random.nextInt(5) == 0,
                    lease));
        }
        return checks;
    }

    /** The leases a request took: those of its concurrency checks, when it was admitted. */
    private static List<List<Lease>> leases(List<Check> checks, List<Outcome> outcomes) {
        boolean admitted = outcomes.stream().allMatch(Outcome::allowed);
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < checks.size(); i++) {
            Check c = checks.get(i);
            if (c.leaseId() != null && admitted && c.cost() > 0) {
                leases.add(new Lease(c.rule(), c.key(), c.policy(), c.leaseId()));
            }
        }
        return leases.isEmpty() ? List.of() : List.of(leases);
    }

    /**
     * 32 threads on one hot key limited to 1000 a day: what they ask while calls are in flight goes out together,
     * and exactly the limit is admitted. Redis counts fewer script calls than decisions.
     */
    @Test
    void manyThreadsOnOneHotKeyAreSentTogetherAndAdmittedToTheLastPermit() throws Exception {
        // exactness and batching, not latency: a time budget a loaded two-core machine keeps (with 50 ms, requests
        // waited past three budgets under other builds, load average 22)
        try (RedisProcess redis = RedisProcess.start(); RedisClient admin = RedisClient.create(redis.url());
                RedisStore store = RedisStore.builder().url(redis.url()).poolSize(32).timeout(Duration.ofSeconds(2))
                        .build()) {
            Policy policy = Policy.parse("1000/1d burst 1000");
            store.evaluate(List.of(Check.of("warm", "k", policy, 1)), 0);      // the script loaded
            admin.sendCommand(Protocol.Command.CONFIG, "RESETSTAT");
            int[] admitted = hammer(store, policy, 32, 150);
            assertThat(admitted[0]).as("admitted of 4800").isEqualTo(1000);
            int[] coalesced = store.coalesced();
            assertThat(coalesced[0]).as("batch calls").isPositive();
            assertThat(calls(admin)).as("script calls for 4800 decisions").isLessThan(4_800);
        }
    }

    /**
     * Each exact algorithm through the coalescer: 24 threads, 4800 requests on one key whose limit cannot refill
     * during the test; exactly the limit is admitted.
     */
    @ParameterizedTest
    @ValueSource(strings = {"1000/366d (gcra)", "1000/366d burst 1000 (token-bucket)", "1000/366d (fixed-window)",
        "1000/366d min-interval 0s (sliding-log)", "1000/366d burst 1000 (leaky-bucket)", "1000 concurrent lease 366d"})
    void everyExactAlgorithmAdmitsToTheLastPermitThroughTheCoalescer(String spec) throws Exception {
        int open = spec.indexOf(" (");
        Policy policy = open < 0 ? Policy.parse(spec) : PolicyParser.parse("limit", spec.substring(0, open),
                Algorithm.fromId("algorithm", spec.substring(open + 2, spec.length() - 1)));
        // exactness, not latency: a time budget a loaded two-core machine keeps (50 ms timed out under other builds)
        try (RedisProcess redis = RedisProcess.start();
                RedisStore store = RedisStore.builder().url(redis.url()).poolSize(24).timeout(Duration.ofSeconds(2))
                        .build()) {
            assertThat(hammer(store, policy, 24, 200)[0]).as("%s: admitted of 4800", policy).isEqualTo(1000);
            assertThat(store.coalesced()[0]).as("batch calls").isPositive();
        }
    }

    @Test
    void aLoneRequestGoesOutAloneAndWithoutCoalescingEveryRequestIsACall() throws Exception {
        try (RedisProcess redis = RedisProcess.start(); RedisClient admin = RedisClient.create(redis.url());
                // a 2 s budget, like its siblings: 16 threads at a 50 ms budget timed out at load average 17 (the
                // calls counted, not their latency, are the point)
                RedisStore alone = RedisStore.builder().url(redis.url()).timeout(Duration.ofSeconds(2)).build();
                RedisStore off = RedisStore.builder().url(redis.url()).coalesce(false).poolSize(32)
                        .timeout(Duration.ofSeconds(2)).build()) {
            Policy policy = Policy.parse("100000/1d");
            alone.evaluate(List.of(Check.of("warm", "k", policy, 1)), 0);      // the script loaded
            admin.sendCommand(Protocol.Command.CONFIG, "RESETSTAT");
            for (int i = 0; i < 100; i++) {
                alone.evaluate(List.of(Check.of("one", "k", policy, 1)), 0);
            }
            assertThat(alone.coalesced()).containsExactly(0, 0, 0);
            assertThat(calls(admin)).isEqualTo(100);
            hammer(off, policy, 16, 50);
            assertThat(off.coalesced()).containsExactly(0, 0, 0);
            assertThat(calls(admin)).isEqualTo(100 + 16 * 50);
        }
    }

    /** Redis killed while threads wait for their batch: every request ends, each with a StoreException. */
    @Test
    void aLostServerAnswersEveryWaitingRequestWithAStoreException() throws Exception {
        RedisProcess redis = RedisProcess.start();
        try (RedisStore store = RedisStore.builder().url(redis.url()).timeout(Duration.ofMillis(500)).build()) {
            Policy policy = Policy.parse("1000000/1s");
            int threads = 16;
            AtomicInteger failed = new AtomicInteger();
            CountDownLatch running = new CountDownLatch(threads);
            CountDownLatch done = new CountDownLatch(threads);
            for (int t = 0; t < threads; t++) {
                Thread thread = new Thread(() -> {
                    running.countDown();
                    try {
                        while (true) {
                            store.evaluate(List.of(Check.of("r", "hot", policy, 1)), 0);
                        }
                    } catch (StoreException e) {
                        failed.incrementAndGet();
                    } finally {
                        done.countDown();
                    }
                });
                thread.setDaemon(true);
                thread.start();
            }
            running.await();
            redis.kill();
            assertThat(done.await(30, TimeUnit.SECONDS)).as("every thread answered").isTrue();
            assertThat(failed.get()).isEqualTo(threads);
        } finally {
            redis.close();
        }
    }

    /** @return the decisions admitted, of {@code threads} x {@code each}, all released at once */
    private static int[] hammer(RedisStore store, Policy policy, int threads, int each) throws Exception {
        AtomicInteger admitted = new AtomicInteger();
        CyclicBarrier start = new CyclicBarrier(threads);
        List<Thread> all = new ArrayList<>();
        List<Throwable> errors = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread thread = new Thread(() -> {
                try {
                    start.await();
                    for (int i = 0; i < each; i++) {
                        String lease = policy.algorithm() == Algorithm.CONCURRENCY ? UUID.randomUUID().toString() : null;
                        Check check = new Check("hot", "k", policy, 1, false, lease);
                        if (store.evaluate(List.of(check), 0).get(0).allowed()) {
                            admitted.incrementAndGet();
                        }
                    }
                } catch (Throwable e) {
                    synchronized (errors) {
                        errors.add(e);
                    }
                }
            });
            thread.start();
            all.add(thread);
        }
        for (Thread thread : all) {
            thread.join(60_000);
        }
        assertThat(errors).isEmpty();
        return new int[] {admitted.get()};
    }

    /** @return the script calls Redis counted since the last CONFIG RESETSTAT: EVALSHA, EVAL and FCALL */
    private static long calls(RedisClient admin) {
        long calls = 0;
        for (String line : admin.info("commandstats").split("\\r?\\n")) {
            if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")
                    || line.startsWith("cmdstat_fcall:")) {
                calls += Long.parseLong(line.substring(line.indexOf("calls=") + 6, line.indexOf(',')));
            }
        }
        return calls;
    }
}
