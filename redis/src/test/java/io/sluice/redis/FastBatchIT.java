package io.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.algorithm.Algorithms;
import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import io.sluice.core.store.Check;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.testing.ManualTimeSource;
import io.sluice.core.testing.RedisProcess;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;

/**
 * The script's fast batch (mode {@code B}, {@link FastBatch}): a batch of requests of one enforced check of cost 1
 * each reads each distinct key once and writes it once, whatever the number of its requests, and decides exactly as
 * the memory store decides the same requests one after the other (keys and policies shared, times going back).
 */
class FastBatchIT {

    private static final List<RedisProcess> started = new ArrayList<>();
    private static final List<String> urls = new ArrayList<>();

    @BeforeAll
    static void startRedis() throws Exception {
        urls.addAll(RedisProcess.everyVersion(started));
    }

    @AfterAll
    static void stopRedis() throws Exception {
        for (RedisProcess redis : started) {
            redis.close();
        }
    }

    @Test
    void aHotKeyIsReadOnceAndWrittenOncePerBatch() {
        Policy policy = Policy.parse("1000/10d");        // a permit per 864 s: none comes back during the test
        for (String url : urls) {
            try (RedisStore store = RedisStore.builder().url(url).prefix("hot-" + System.nanoTime()).build()) {
                List<List<Check>> batch = new ArrayList<>();
                for (int i = 0; i < 32; i++) {
                    batch.add(List.of(Check.of("r", "hot", policy, 1)));
                }
                Map<String, Long> counted = commands(url, () -> assertThat(store.evaluateTogether(batch, new long[32]))
                        .hasSize(32).allSatisfy(o -> assertThat(o.get(0).allowed()).isTrue()));
                assertThat(counted).as("Redis %s", RedisProcess.version(url)).containsEntry("get", 1L)
                        .containsEntry("psetex", 1L).doesNotContainKey("mget").doesNotContainKey("set");
                assertThat(store.evaluate(List.of(Check.of("r", "hot", policy, 1)), 0).get(0).remaining())
                        .as("the one write holds the batch's 32 decisions").isEqualTo(1_000 - 33);
            }
        }
    }

    @Test
    void interleavedKeysAreEachReadOnceAndWrittenOnce() {
        Policy policy = Policy.parse("1000/1s");
        String url = urls.get(urls.size() - 1);
        try (RedisStore store = RedisStore.builder().url(url).prefix("two-" + System.nanoTime()).build()) {
            List<List<Check>> batch = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                batch.add(List.of(Check.of("r", i % 3 == 0 ? "a" : i % 3 == 1 ? "b" : "c", policy, 1)));
            }
            Map<String, Long> counted = commands(url, () -> store.evaluateTogether(batch, new long[12]));
            assertThat(counted).as("one read of the three keys, one write of each").containsEntry("mget", 1L)
                    .doesNotContainKey("get").containsEntry("psetex", 3L);
        }
    }

    @Test
    void fourRulesPerRequestReadEachKeyOnceAndWriteItOncePerBatch() {
        Policy policy = Policy.parse("1000/10d");
        for (String url : urls) {
            try (RedisStore store = RedisStore.builder().url(url).prefix("four-" + System.nanoTime()).build()) {
                List<List<Check>> batch = new ArrayList<>();
                for (int i = 0; i < 32; i++) {
                    List<Check> checks = new ArrayList<>();
                    for (int r = 0; r < 4; r++) {
                        checks.add(Check.of("rule" + r, "hot", policy, 1));
                    }
                    batch.add(checks);
                }
                Map<String, Long> counted = commands(url, () -> assertThat(store.evaluateTogether(batch, new long[32]))
                        .hasSize(32).allSatisfy(o -> assertThat(o).hasSize(4).allMatch(Outcome::allowed)));
                assertThat(counted).as("Redis %s: one read of the four keys, one write of each",
                        RedisProcess.version(url)).containsEntry("mget", 1L).containsEntry("psetex", 4L)
                        .doesNotContainKey("get").doesNotContainKey("set");
                assertThat(store.evaluate(List.of(Check.of("rule3", "hot", policy, 1)), 0).get(0).remaining())
                        .isEqualTo(1_000 - 33);
            }
        }
    }

    /** A denied request of several rules spends nothing on any of them, in the batch and after it. */
    @Test
    void aDeniedRequestOfSeveralRulesSpendsNothing() {
        Policy wide = Policy.parse("1000/10d");
        Policy narrow = Policy.parse("2/10d");
        String url = urls.get(urls.size() - 1);
        try (RedisStore store = RedisStore.builder().url(url).prefix("deny-" + System.nanoTime()).build()) {
            List<List<Check>> batch = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                batch.add(List.of(Check.of("wide", "k", wide, 1), Check.of("narrow", "k", narrow, 1)));
            }
            List<List<Outcome>> outcomes = store.evaluateTogether(batch, new long[5]);
            assertThat(outcomes).extracting(o -> o.get(1).allowed()).containsExactly(true, true, false, false, false);
            assertThat(outcomes.get(4).get(0).remaining()).as("the wide rule after two admitted requests")
                    .isEqualTo(1_000 - 3);
            assertThat(store.evaluate(List.of(Check.of("wide", "k", wide, 1)), 0).get(0).remaining())
                    .as("three denied requests spent nothing").isEqualTo(1_000 - 3);
        }
    }

    /**
     * Batches of one to 64 requests over three keys and two GCRA policies, each request at its own time (the
     * application's; now and then one that went back), against the memory store deciding them in the same order;
     * requests of one rule, or of one to four rules (all-or-nothing: a denied request spends nothing on any).
     */
    @ParameterizedTest(name = "several rules per request: {0}")
    @ValueSource(booleans = {false, true})
    void aFastBatchDecidesAsTheMemoryStoreDoesOneRequestAfterTheOther(boolean several) {
        long seed = Long.getLong("sluice.seed", System.nanoTime());
        for (String url : urls) {
            Random random = new Random(seed);
            try (RedisStore store = RedisStore.builder().url(url).applicationTime(true)
                    .prefix("diff-" + System.nanoTime()).timeout(Duration.ofSeconds(5)).build()) {
                ManualTimeSource clock = new ManualTimeSource();
                MemoryStore memory = MemoryStore.builder().timeSource(clock).build();
                List<Policy> policies = List.of(RedisDifferentialIT.policy(random, Algorithm.GCRA),
                        RedisDifferentialIT.policy(random, Algorithm.GCRA));
                assertThat(policies).allMatch(p -> Algorithms.definition(p.algorithm()).fast());
                long now = ManualTimeSource.START_MICROS + random.nextInt(1_000_000_000);
                for (int step = 0; step < 80; step++) {
                    now += random.nextInt(4) == 0 ? policies.get(0).periodMicros() / 3 : random.nextInt(50_000);
                    int size = 1 + random.nextInt(random.nextBoolean() ? 8 : 64);
                    List<List<Check>> batch = new ArrayList<>();
                    List<List<Outcome>> expected = new ArrayList<>();
                    long[] times = new long[size];
                    long at = now;
                    for (int r = 0; r < size; r++) {
                        // runs of one time, as several requests of one instant, or a time per request
                        at = random.nextInt(3) == 0 ? at : now + random.nextInt(3_000)
                                - (random.nextInt(10) == 0 ? 5_000 : 0);
                        times[r] = at;
                        clock.set(at);
                        List<Check> checks = checks(random, policies, several);
                        batch.add(checks);
                        expected.add(memory.evaluate(checks, at));
                    }
                    assertThat(store.evaluateTogether(batch, times)).as("Redis %s, seed %d (-Dsluice.seed=%d), step %d:"
                            + " %s", RedisProcess.version(url), seed, seed, step, batch).isEqualTo(expected);
                }
            }
        }
    }

    /**
     * A request's checks: one, or where {@code several} one to four rules (all of them now and then, a run of
     * requests on the same keys), each on one of three keys under one of the two policies.
     */
    private static List<Check> checks(Random random, List<Policy> policies, boolean several) {
        int n = several ? 1 + random.nextInt(4) : 1;
        List<Check> checks = new ArrayList<>(n);
        List<Integer> rules = new ArrayList<>(List.of(0, 1, 2, 3));
        if (several && random.nextBoolean()) {
            Collections.shuffle(rules, random);
        }
        for (int i = 0; i < n; i++) {
            int p = several ? rules.get(i) % 2 : random.nextInt(4) == 0 ? 1 : 0;
            int rule = several ? rules.get(i) : p;
            checks.add(Check.of("rule" + rule, "k" + random.nextInt(3), policies.get(p), 1));
        }
        return checks;
    }

    /**
     * A state another program wrote, with a fraction ({@code 1000000.5}), stays a string in the batch (only an integer
     * state is kept as a number): a batch on one key decides and writes as the same requests on another key one call
     * each, with one rule and with two.
     */
    @Test
    void aFractionalStateDecidesInABatchAsInCallsOfItsOwn() {
        Policy policy = Policy.parse("4/1s");
        for (String url : urls) {
            for (int rules = 1; rules <= 2; rules++) {
                try (RedisStore store = RedisStore.builder().url(url).applicationTime(true)
                        .prefix("frac-" + System.nanoTime()).timeout(Duration.ofSeconds(5)).build();
                        Jedis jedis = new Jedis(URI.create(url))) {
                    List<List<Check>> batch = new ArrayList<>();
                    List<List<Outcome>> alone = new ArrayList<>();
                    long[] times = new long[6];
                    for (int r = 0; r < rules; r++) {
                        jedis.set(store.key("r" + r, "batched"), "1000000.5");
                        jedis.set(store.key("r" + r, "alone"), "1000000.5");
                    }
                    for (int i = 0; i < times.length; i++) {
                        times[i] = 400_000 + 150_000 * i;
                        List<Check> batched = new ArrayList<>();
                        List<Check> single = new ArrayList<>();
                        for (int r = 0; r < rules; r++) {
                            batched.add(Check.of("r" + r, "batched", policy, 1));
                            single.add(Check.of("r" + r, "alone", policy, 1));
                        }
                        batch.add(batched);
                        alone.add(store.evaluate(single, times[i]));
                    }
                    List<List<Outcome>> together = store.evaluateTogether(batch, times);
                    assertThat(together).as("Redis %s, %d rule(s)", RedisProcess.version(url), rules).isEqualTo(alone);
                    // need = 600,000.5 + 250,000 (a TAT of 1,000,000.5 at 400,000): floor(149,999.5 / 250,000) left
                    assertThat(together.get(0).get(0)).as("the packed reply truncates the fractional reset")
                            .extracting(Outcome::allowed, Outcome::remaining, Outcome::resetAfterMicros)
                            .containsExactly(true, 0L, 850_000L);
                    for (int r = 0; r < rules; r++) {
                        assertThat(jedis.get(store.key("r" + r, "batched"))).endsWith(".5")
                                .isEqualTo(jedis.get(store.key("r" + r, "alone")));
                    }
                }
            }
        }
    }

    /** @return the commands Redis counted while {@code work} ran, the script's own calls ({@code GET}...) included */
    private static Map<String, Long> commands(String url, Runnable work) {
        try (Jedis jedis = new Jedis(URI.create(url))) {
            jedis.configResetStat();
            work.run();
            Map<String, Long> calls = new TreeMap<>();
            for (String line : jedis.info("commandstats").split("\r?\n")) {
                if (line.startsWith("cmdstat_")) {
                    String name = line.substring("cmdstat_".length(), line.indexOf(':'));
                    String count = line.substring(line.indexOf("calls=") + 6, line.indexOf(',', line.indexOf("calls=")));
                    calls.put(name, Long.parseLong(count));
                }
            }
            return Collections.unmodifiableMap(calls);
        }
    }
}
