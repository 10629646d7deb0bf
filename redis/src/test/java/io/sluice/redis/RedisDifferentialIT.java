package io.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.algorithm.Algorithms;
import io.sluice.core.algorithm.Definition;
import io.sluice.core.store.Check;
import io.sluice.core.store.Lease;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import io.sluice.core.testing.EngineDifferential;
import io.sluice.core.testing.ManualTimeSource;
import io.sluice.core.testing.RedisProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * Redis and memory give the same answers: seeded random timelines (arrival times that sometimes go backwards, costs
 * from 0 to above the capacity, several keys, several rules per request, shadow rules, leases taken and released)
 * replayed through {@link MemoryStore} and {@link RedisStore} with the same explicit time, which is also the clock
 * memory expires its state by ({@link RedisClockDifferentialIT} steps that clock back further); every outcome field
 * must be equal, and every key the timelines leave in Redis has a time to live. A failure prints the server's version, the
 * seed, the request and both answers.
 *
 * <p>The timelines run on every Redis these tests can start ({@link RedisProcess#binaries()}): the embedded 6.2 and the
 * {@code redis-server} on the {@code PATH}, which {@code .ci/run} installs (Debian's 7.0), so one run holds the script
 * to both versions. With {@code SLUICE_REDIS_URL} set they run on that server only, and with
 * {@code SLUICE_REDIS_SERVER} set on the one server it names ({@code .ci/run} runs the suite so on
 * each version).
 */
class RedisDifferentialIT {

    /** The algorithms a store decides: not those the engine keeps on each node ({@link Algorithm#local()}). */
    static final List<Algorithm> STORED = Arrays.stream(Algorithm.values()).filter(a -> !a.local()).toList();

    /** A server the timelines run on: its version, a store over it (application time), a client to inspect keys. */
    private record Server(String version, RedisStore store, RedisClient admin, String prefix) {}

    private static final List<RedisProcess> started = new ArrayList<>();
    private static final List<Server> servers = new ArrayList<>();

    @BeforeAll
    static void startRedis() throws Exception {
        for (String url : RedisProcess.everyVersion(started)) {
            String prefix = "diff-" + System.nanoTime();
            servers.add(new Server(RedisProcess.version(url), RedisStore.builder().url(url).applicationTime(true)
                    .prefix(prefix).timeout(Duration.ofSeconds(5)).build(), RedisClient.create(url), prefix));
        }
    }

    @AfterAll
    static void stopRedis() throws Exception {
        for (Server server : servers) {
            server.store().close();
            server.admin().close();
        }
        for (RedisProcess redis : started) {
            redis.close();
        }
    }

    @Test
    void theTimelinesRunOnRedis62AndOnTheRedisOfThePath() throws Exception {
        List<String> versions = servers.stream().map(Server::version).toList();
        System.out.println("RedisDifferentialIT ran on Redis " + versions);
        if (RedisProcess.external() != null || RedisProcess.chosen().isPresent()) {
            assertThat(versions).hasSize(1);        // the one server given, as .ci/run gives Valkey 8.0 and Redis 8.0
            return;
        }
        assertThat(versions).as("the embedded Redis").last().asString().startsWith("6.2.");
        String ci = System.getenv("CI");
        if (ci != null && !ci.isBlank() && !ci.equalsIgnoreCase("false")) {
            assertThat(versions).as("on CI, .ci/run installs redis-server (Debian: 7.0) so that the script is tested "
                    + "on Redis 7 or newer too").anyMatch(v -> Integer.parseInt(v.substring(0, v.indexOf('.'))) >= 7);
        }
    }

    /** @return every registered algorithm: each one's fragment is held to its Java step here */
    static Stream<Algorithm> registered() {
        return Algorithms.all().stream().map(Definition::algorithm);
    }

    @ParameterizedTest
    @MethodSource("registered")
    void redisAgreesWithMemoryForEveryOutcomeField(Algorithm algorithm) {
        long seed = Long.getLong("sluice.seed", System.nanoTime());
        for (Server server : servers) {
            Random random = new Random(seed);
            for (int timeline = 0; timeline < 12; timeline++) {
                replay(server, random, seed, timeline, algorithm);
            }
            List<String> keys = new ArrayList<>();
            ScanParams match = new ScanParams().match(server.prefix() + ":" + algorithm.id() + "-t*").count(10_000);
            String cursor = ScanParams.SCAN_POINTER_START;
            do {
                ScanResult<String> page = server.admin().scan(cursor, match);
                keys.addAll(page.getResult());
                cursor = page.getCursor();
            } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
            assertThat(keys).as("Redis %s: the keys the timelines left", server.version()).isNotEmpty();
            for (String key : keys) {
                assertThat(server.admin().pttl(key)).as("Redis %s: PTTL of %s (-1: no time to live; -2: already "
                        + "expired, which is fine)", server.version(), key).isNotEqualTo(-1);
            }
        }
    }

    /**
     * The policies at the edges of what {@link Policy} accepts (a billion permits, 366-day periods and spans up to
     * 2^52 µs, a cold factor of 1000, leases and waits of 366 days), costs from 0 to {@code Long.MAX_VALUE}, times from
     * the epoch itself to before 2112 (until when Policy's bounds keep every stored time below 2^53) and jumps back by
     * up to a period: Redis (whose Lua numbers are doubles) and memory must still agree on every field.
     */
    @Test
    void redisAgreesWithMemoryAtTheExtremes() {
        String[] notations = {
            "gcra|1000000000/1ms", "gcra|1/366d", "gcra|1/1d burst 52124", "gcra|3/366d burst 427",
            "gcra|1000000000/366d", "token-bucket|1000000000/1ms", "token-bucket|1/1d burst 52124",
            "token-bucket|1000000000/366d burst 1", "leaky-bucket|1/1d burst 52124",
            "leaky-bucket|1000000000/1ms max-wait 366d delay 1000000000", "leaky-bucket|7/366d burst 9 max-wait 366d",
            "fixed-window|1000000000/366d staggered", "fixed-window|1/1ms", "fixed-window|999999937/7d",
            "sliding-window|1000000000/366d", "sliding-window|999999937/7d", "sliding-window|1/1ms",
            "sliding-window|3/366d", "sliding-log|1000/366d min-interval 366d count-rejected",
            "sliding-log|3/1ms min-interval 366d", "warm-up|1000000/1s warm-up 366d cold-factor 1000",
            "warm-up|1/366d warm-up 366d cold-factor 1000", "warm-up|1000000000/366d warm-up 1ms",
            "warm-up|1000/1ms warm-up 1ms cold-factor 1000", "concurrency|1000000000 concurrent lease 366d",
            "concurrency|1 concurrent lease 1ms"};
        long seed = Long.getLong("sluice.seed", System.nanoTime());
        long[] starts = {0, 1, ManualTimeSource.START_MICROS, 2_500_000_000_000_000L};   // the last: 2049, and 60 steps stay before 2112
        for (Server server : servers) {
            Random random = new Random(seed);
            for (String spec : notations) {
                String[] parts = spec.split("\\|");
                Policy p = io.sluice.core.policy.PolicyParser.parse("limit", parts[1],
                        Algorithm.fromId("algorithm", parts[0]));
                for (long start : starts) {
                    MemoryStore memory = MemoryStore.builder().timeSource(new ManualTimeSource()).build();
                    String rule = "x-" + parts[0] + "-" + Math.abs(spec.hashCode()) + "-" + start + "-" + seed;
                    long now = start;
                    for (int step = 0; step < 60; step++) {
                        now += extremeGap(random, p);
                        long at = random.nextInt(8) == 0 ? Math.max(0, now - (long) (random.nextDouble() * p.periodMicros())) : now;
                        long cost = extremeCost(random, p);
                        String lease = p.algorithm() == Algorithm.CONCURRENCY ? rule + "-" + step : null;
                        List<Check> checks = List.of(new Check(rule, "k", p, cost, false, lease));
                        List<Outcome> expected = memory.evaluate(checks, at);
                        List<Outcome> actual = server.store().evaluate(checks, at);
                        assertThat(actual).as("Redis %s, seed %d, %s from %d, step %d at %d, cost %d", server.version(),
                                seed, p, start, step, at, cost).isEqualTo(expected);
                    }
                }
            }
        }
    }

    /**
     * An admitted check's reply is packed into one integer, reset-after x (limit + 1) + remaining, when that is below
     * 2^53 (and a request's checks are packed only all together). For every rate algorithm, small and large limits,
     * alone and beside a check that does not pack, Redis still agrees with memory on every field; and a fixed window of
     * a billion requests, and a GCRA bucket of a billion, are asked at each side of the bound (reset-after about 9 s),
     * where the packed integer comes within about 1.25 x 10^9 (a little more than one unit of its radix) of 2^53.
     */
    @Test
    void packedRepliesAgreeWithMemory() {
        String[] notations = {"10/1m", "65536/1s", "1000000000/1s", "999999999/1m", "1/366d", "3/1ms"};
        List<Algorithm> rates = STORED.stream().filter(a -> a != Algorithm.CONCURRENCY).toList();
        for (Server server : servers) {
            for (Algorithm algorithm : rates) {
                for (String first : notations) {
                    for (String second : new String[] {null, "10/1m", "1000000000/366d"}) {
                        Policy p = packing(first, algorithm);
                        Policy q = second == null ? null : packing(second, algorithm);
                        MemoryStore memory = MemoryStore.builder().timeSource(new ManualTimeSource()).build();
                        String rule = "pack-" + algorithm.id() + "-" + System.nanoTime();
                        long at = ManualTimeSource.START_MICROS + 7;
                        for (long gap : new long[] {0, 0, 1, p.periodMicros() / 2, 3, p.periodMicros()}) {
                            at += gap;
                            List<Check> checks = new ArrayList<>();
                            checks.add(Check.of(rule, "k", p, 1));
                            if (q != null) {
                                checks.add(Check.of(rule + "-second", "k", q, 1));
                            }
                            assertThat(server.store().evaluate(checks, at)).as("Redis %s: %s with %s at %d",
                                    server.version(), p, q, at).isEqualTo(memory.evaluate(checks, at));
                        }
                    }
                }
            }
            Policy billion = Policy.parse("999999999/1m").withAlgorithm(Algorithm.FIXED_WINDOW);
            MemoryStore memory = MemoryStore.builder().timeSource(new ManualTimeSource()).build();
            String rule = "pack-bound-" + System.nanoTime();
            long windowEnd = (ManualTimeSource.START_MICROS / 60_000_000L + 2) * 60_000_000L;
            for (long resetAfter : new long[] {9_007_200, 9_007_199, 9_007_198, 9_007_197, 9_007_196, 1}) {
                long at = windowEnd - resetAfter;
                List<Check> alone = List.of(Check.of(rule, "k", billion, 1));
                List<Check> two = List.of(Check.of(rule + "-a", "k", billion, 1), Check.of(rule + "-b", "k", billion, 2));
                for (List<Check> checks : List.of(alone, two)) {
                    List<Outcome> expected = memory.evaluate(checks, at);
                    assertThat(expected.get(0).resetAfterMicros()).isEqualTo(resetAfter);
                    assertThat(server.store().evaluate(checks, at)).as("Redis %s: reset-after %d, %d checks",
                            server.version(), resetAfter, checks.size()).isEqualTo(expected);
                }
            }
            // GCRA, one check of cost 1 (the script's shortest path): a burst of a billion, one permit a second; ten
            // requests put the key's TAT 10 s ahead, then one request is timed so that its reset-after is the bound's
            Policy burst = Policy.parse("1/1s burst 1000000000");
            for (long resetAfter : new long[] {9_007_200, 9_007_199, 9_007_198, 9_007_197, 9_007_196}) {
                String key = "gcra-" + resetAfter;
                long start = ManualTimeSource.START_MICROS;
                List<Check> checks = List.of(Check.of(rule, key, burst, 1));
                for (int i = 0; i < 10; i++) {
                    assertThat(server.store().evaluate(checks, start)).isEqualTo(memory.evaluate(checks, start));
                }
                long at = start + 10_000_000 - (resetAfter - 1_000_000);
                List<Outcome> expected = memory.evaluate(checks, at);
                assertThat(expected.get(0).resetAfterMicros()).isEqualTo(resetAfter);
                assertThat(server.store().evaluate(checks, at)).as("Redis %s: GCRA reset-after %d", server.version(),
                        resetAfter).isEqualTo(expected);
            }
        }
    }

    /**
     * What the packing is for: the script answers one admitted check with one integer, reset-after x (limit + 1) +
     * remaining (a table of four costs Redis about 0.4 µs more per call), and a denied one with the table of four.
     * The script is called as {@link RedisStore} calls it, in both modes that can carry such a check: any checks (mode
     * and time, the check's code, capacity and interval) and one GCRA check of cost 1 (mode and time, capacity and
     * interval).
     */
    @Test
    void oneAdmittedCheckIsAnsweredWithOneInteger() throws Exception {
        String script = script();
        Policy p = Policy.parse("2/1s");        // GCRA: capacity 2, one permit every 500,000 µs
        String capacity = Long.toString(p.capacity());
        String interval = Long.toString(p.intervalMicros());
        List<List<String>> modes = List.of(
                List.of("e" + ManualTimeSource.START_MICROS, "g", capacity, interval),     // any checks
                List.of("g" + ManualTimeSource.START_MICROS, capacity, interval));         // one GCRA check of cost 1
        for (Server server : servers) {
            for (List<String> args : modes) {
                List<String> key = List.of(server.prefix() + ":reply:" + System.nanoTime());
                assertThat(server.admin().eval(script, key, args)).as("Redis %s, %s", server.version(), args)
                        .isEqualTo(500_000L * 3 + 1);       // reset-after 500,000 µs, remaining 1
                assertThat(server.admin().eval(script, key, args)).as("Redis %s, %s", server.version(), args)
                        .isEqualTo(1_000_000L * 3);         // reset-after 1 s, remaining 0
                assertThat(server.admin().eval(script, key, args)).as("Redis %s, %s: denied", server.version(), args)
                        .isEqualTo(List.of(0L, 0L, 1_000_000L, 500_000L));
            }
        }
    }

    /**
     * A state another program wrote that is not a whole number ("1000.5": Lua's tonumber reads it as 1000.5) leaves a
     * bucket of capacity 1 full for half a microsecond more: the general GCRA branch denies with retry-after 0.5
     * raised to 1, and mode 'g' must too (Redis truncates an unclamped 0.5 to 0 in its integer reply, and
     * {@link Outcome} refuses a denial with retry-after 0: the store would throw instead of denying).
     */
    @Test
    void aFractionalStateIsDeniedAlikeInBothModes() throws Exception {
        String script = script();
        Policy p = Policy.parse("1/1s");        // GCRA: capacity 1, one permit every 1,000,000 µs
        List<List<String>> modes = List.of(List.of("e1000", "g", "1", "1000000"), List.of("g1000", "1", "1000000"));
        for (Server server : servers) {
            for (List<String> args : modes) {
                String key = server.prefix() + ":fraction:" + System.nanoTime();
                server.admin().psetex(key, 60_000, "1000.5");
                assertThat(server.admin().eval(script, List.of(key), args)).as("Redis %s, %s", server.version(), args)
                        .isEqualTo(List.of(0L, 0L, 0L, 1L));
            }
            String rule = "fraction-" + System.nanoTime();
            server.admin().psetex(server.store().key(rule, "k"), 60_000, "1000.5");
            assertThat(server.store().evaluate(List.of(Check.of(rule, "k", p, 1)), 1000))
                    .as("Redis %s", server.version()).containsExactly(Outcome.deny(1, 0, 0, 1));
        }
    }

    /**
     * The time to live each mode writes: the state's span in ms, rounded up, plus the minute of slack for the
     * application's clock (the differential timelines only assert that a key has one).
     */
    @Test
    void bothModesWriteTheSameTimeToLive() throws Exception {
        String script = script();
        // capacity 2, interval 500,001 µs: one request puts the TAT 500,001 µs ahead: 501 ms, plus 60 s of slack
        List<List<String>> modes = List.of(List.of("e1000", "g", "2", "500001"), List.of("g1000", "2", "500001"));
        for (Server server : servers) {
            for (List<String> args : modes) {
                String key = server.prefix() + ":ttl:" + System.nanoTime();
                server.admin().eval(script, List.of(key), args);
                assertThat(server.admin().get(key)).as("Redis %s, %s", server.version(), args).isEqualTo("501001");
                assertThat(server.admin().pttl(key)).as("Redis %s, %s", server.version(), args)
                        .isBetween(60_501L - 1_000, 60_501L);
            }
        }
    }

    /** The script's text, as {@link RedisStore} loads it, to call it by hand. */
    private static String script() {
        return ScriptLibrary.text();
    }

    /**
     * A policy of {@link #packedRepliesAgreeWithMemory}; where the algorithm refuses a billion (the sliding log's
     * limit is at most 100,000, warm-up's rate at most one per microsecond), 100,000 in the same period.
     */
    private static Policy packing(String notation, Algorithm algorithm) {
        try {
            return Policy.parse(notation).withAlgorithm(algorithm);
        } catch (io.sluice.core.config.ConfigException refused) {
            return Policy.parse("100000" + notation.substring(notation.indexOf('/'))).withAlgorithm(algorithm);
        }
    }

    /**
     * A bucket at the largest span (capacity x interval just under 2^52 µs) that is full and asked for its whole
     * capacity: the time it would fit, {@code tat + cost x interval}, is past 2^53, where a Lua double loses the
     * microsecond. The script works with differences from now, which stay exact.
     */
    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"GCRA", "LEAKY_BUCKET"})
    void aFullBucketOfTheLargestSpanAgreesToTheMicrosecond(Algorithm algorithm) {
        long at = ManualTimeSource.START_MICROS + 1;               // odd: a sum past 2^53 cannot hold it
        long later = at + 86_400_000_001L;
        agreeWithMemory(Policy.parse("1/1d burst 52124").withAlgorithm(algorithm), "span-" + algorithm.id(),
                new long[][] {{at, 52_124}, {at, 52_124}, {later, 1}, {later + 1, 52_124}});
    }

    /**
     * A full bucket of nearly the largest span, asked for its whole capacity by a clock that went back (an odd number
     * of microseconds): the time it would fit, ahead + cost x interval, passes 2^53, where a double loses the
     * microsecond. The denial's retry-after (that time less the span) must still be exact. Found by a seed of
     * {@link #redisAgreesWithMemoryAtTheExtremes}.
     */
    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"GCRA", "LEAKY_BUCKET"})
    void aFullBucketAskedByAClockThatWentBackAgreesToTheMicrosecond(Algorithm algorithm) {
        long start = 2_500_000_000_000_000L;
        agreeWithMemory(Policy.parse("3/366d burst 427").withAlgorithm(algorithm), "back-" + algorithm.id(),
                new long[][] {{start, 427}, {start - 31_622_399_999_999L, 427}, {start - 1, 427}, {start, 427}});
    }

    /** Requests {at, cost} of one check of {@code p}, in order, on every server and in memory: every outcome equal. */
    private static void agreeWithMemory(Policy p, String name, long[][] requests) {
        for (Server server : servers) {
            MemoryStore memory = MemoryStore.builder().timeSource(new ManualTimeSource()).build();
            String rule = name + "-" + System.nanoTime();
            for (long[] request : requests) {
                List<Check> checks = List.of(Check.of(rule, "k", p, request[1]));
                assertThat(server.store().evaluate(checks, request[0])).as("Redis %s: %s, cost %d at %d",
                        server.version(), p, request[1], request[0]).isEqualTo(memory.evaluate(checks, request[0]));
            }
        }
    }

    private static long extremeGap(Random random, Policy p) {
        long interval = Math.max(1, p.periodMicros() / p.limit());
        return switch (random.nextInt(7)) {
            case 0, 1 -> 0;
            case 2 -> 1;
            case 3 -> interval;
            case 4 -> (long) (random.nextDouble() * 3 * interval);
            case 5 -> p.periodMicros();
            default -> (long) (random.nextDouble() * p.periodMicros());
        };
    }

    private static long extremeCost(Random random, Policy p) {
        long most = p.algorithm() == Algorithm.GCRA || p.algorithm() == Algorithm.TOKEN_BUCKET
                || p.algorithm() == Algorithm.LEAKY_BUCKET ? p.capacity() : p.limit();
        return switch (random.nextInt(10)) {
            case 0 -> 0;
            case 1 -> most;
            case 2 -> most + 1;
            case 3 -> Long.MAX_VALUE;
            case 4 -> (1L << 53) + 1;
            case 5 -> 1 + (long) (random.nextDouble() * most);
            default -> 1;
        };
    }

    private static void replay(Server server, Random random, long seed, int timeline, Algorithm main) {
        RedisStore store = server.store();
        ManualTimeSource clock = new ManualTimeSource();        // memory expires by the time each step passes
        MemoryStore memory = MemoryStore.builder().timeSource(clock).build();
        List<Policy> policies = new ArrayList<>();
        policies.add(policy(random, main));
        int extra = random.nextInt(3);
        for (int i = 0; i < extra; i++) {
            policies.add(policy(random, STORED.get(random.nextInt(STORED.size()))));
        }
        String[] keys = {"k1", "k2", "2001:db8::" + random.nextInt(100), "x".repeat(80) + timeline};
        String rulePrefix = main.id() + "-t" + timeline + "-";
        long now = ManualTimeSource.START_MICROS + random.nextInt(1_000_000_000);
        List<List<Lease>> held = new ArrayList<>();
        for (int step = 0; step < 400; step++) {
            now += gap(random, policies.get(0));
            long at = random.nextInt(20) == 0 ? now - random.nextInt(2_000_000) : now;
            clock.set(at);
            if (!held.isEmpty() && random.nextInt(4) == 0) {
                List<Lease> leases = held.remove(random.nextInt(held.size()));
                memory.release(leases, at);
                store.release(leases, at);
                continue;
            }
            List<Check> checks = new ArrayList<>();
            String key = keys[random.nextInt(keys.length)];
            for (int r = 0; r < policies.size(); r++) {
                if (r > 0 && random.nextInt(4) == 0) {
                    continue;
                }
                Policy p = policies.get(r);
                String lease = p.algorithm() == Algorithm.CONCURRENCY ? "lease-" + main.id() + "-" + timeline + "-" + step : null;
                checks.add(new Check(rulePrefix + r, key, p, cost(random, p), r > 0 && random.nextInt(5) == 0, lease));
            }
            List<Outcome> expected = memory.evaluate(checks, at);
            List<Outcome> actual = store.evaluate(checks, at);
            assertThat(actual).as("Redis %s, seed %d (-Dsluice.seed=%d), timeline %d, step %d at %d: %s",
                    server.version(), seed, seed, timeline, step, at - ManualTimeSource.START_MICROS, checks)
                    .isEqualTo(expected);
            List<Lease> leases = new ArrayList<>();
            boolean allowed = expected.stream().allMatch(o -> o.allowed()) || checks.stream().anyMatch(Check::shadow);
            for (int i = 0; i < checks.size(); i++) {
                Check c = checks.get(i);
                if (c.leaseId() != null && expected.get(i).allowed() && allowed && c.cost() > 0) {
                    leases.add(new Lease(c.rule(), c.key(), c.policy(), c.leaseId()));
                }
            }
            if (!leases.isEmpty()) {
                held.add(leases);
            }
        }
    }

    private static long gap(Random random, Policy p) {
        return EngineDifferential.gap(random, p);
    }

    static long cost(Random random, Policy p) {
        return EngineDifferential.cost(random, p);
    }

    static Policy policy(Random random, Algorithm algorithm) {
        return EngineDifferential.policy(random, algorithm);
    }
}
