package io.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.store.Check;
import io.sluice.core.store.Lease;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.store.StoreException;
import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import io.sluice.core.config.ConfigException;
import io.sluice.core.testing.ManualTimeSource;
import io.sluice.core.testing.RedisProcess;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * RedisStore against a real redis-server: TTLs, hostile keys, Redis time, restarts, bad URLs (script and function
 * reloads: {@link RedisFunctionsIT}).
 */
class RedisStoreIT {

    private static final long T0 = ManualTimeSource.START_MICROS;
    private static RedisProcess redis;
    private static RedisClient admin;

    @BeforeAll
    static void start() throws Exception {
        redis = RedisProcess.start();
        admin = RedisClient.create(redis.url());
    }

    @AfterAll
    static void stop() throws Exception {
        admin.close();
        redis.close();
    }

    private static RedisStore store(String prefix) {
        return RedisStore.builder().url(redis.url()).applicationTime(true).prefix(prefix).timeout(Duration.ofSeconds(2))
                .build();
    }

    @Test
    void theUrlsTimeoutIsTheBudgetOfEveryCall() throws Exception {
        try (RedisProcess own = RedisProcess.start();
                RedisClient pauser = RedisClient.create(own.url());
                RedisStore patient = RedisStore.builder().url(own.url() + "?time=application&timeout=10s").build();
                RedisStore hasty = RedisStore.builder().url(own.url() + "?time=application&timeout=200ms").build()) {
            // budgets a loaded CI machine does not reach before the pause (its first call loads the script), and a
            // pause no scheduling delay outlasts before the hasty call
            Policy five = Policy.parse("5/1h");
            assertThat(patient.evaluate(List.of(Check.of("r", "a", five, 1)), T0).get(0).remaining()).isEqualTo(4);
            assertThat(hasty.evaluate(List.of(Check.of("r", "b", five, 1)), T0).get(0).remaining()).isEqualTo(4);

            pauser.sendCommand(Protocol.Command.CLIENT, "PAUSE", "3000");     // in force once it has answered
            assertThatThrownBy(() -> hasty.evaluate(List.of(Check.of("r", "b", five, 1)), T0))
                    .as("200 ms is not enough while Redis answers nobody").isInstanceOf(StoreException.class);
            assertThat(patient.evaluate(List.of(Check.of("r", "a", five, 1)), T0).get(0).remaining())
                    .as("10 s outlasts the pause").isEqualTo(3);
        }
    }

    @Test
    void everyKeyWrittenHasATimeToLive() {
        try (RedisStore store = store("ttl")) {
            long now = T0;
            for (Algorithm a : RedisDifferentialIT.STORED) {
                Policy p = a == Algorithm.CONCURRENCY ? Policy.concurrent(3)
                        : a == Algorithm.SLIDING_LOG ? Policy.parse("5/1m min-interval 1s")
                        : Policy.of(a, 5, Duration.ofSeconds(10));
                for (int i = 0; i < 20; i++) {
                    now += 7_000;
                    store.evaluate(List.of(new Check(a.id(), "client-" + (i % 4), p, 1, false,
                            a == Algorithm.CONCURRENCY ? "lease-" + i : null)), now);
                }
            }
            List<String> keys = keys("ttl:*");
            assertThat(keys).hasSizeGreaterThanOrEqualTo(RedisDifferentialIT.STORED.size() * 4);
            for (String key : keys) {
                assertThat(admin.pttl(key)).as("PTTL of %s", key).isPositive();
            }
        }
    }

    @Test
    void hostileKeysAreHashedAndStillLimit() {
        try (RedisStore store = store("hostile")) {
            String huge = "\u0000\r\n{evil}" + "x".repeat(100_000);
            Policy one = Policy.parse("1/1m");
            assertThat(store.evaluate(List.of(Check.of("r", huge, one, 1)), T0).get(0).allowed()).isTrue();
            assertThat(store.evaluate(List.of(Check.of("r", huge, one, 1)), T0).get(0).allowed()).isFalse();
            assertThat(keys("hostile:*")).singleElement().satisfies(k -> {
                assertThat(k).startsWith("hostile:r:#").hasSizeLessThan(40);
                assertThat(store.key("r", huge)).isEqualTo(k);
            });
            assertThat(store.key("r", "203.0.113.9")).as("every client part is a keyed hash")
                    .matches("hostile:r:#[A-Za-z0-9_-]{16}");
        }
    }

    @Test
    void byDefaultTheScriptReadsRedisTime() {
        try (RedisStore store = RedisStore.builder().url(redis.url()).prefix("time").build()) {
            Policy two = Policy.parse("2/1h").withAlgorithm(Algorithm.FIXED_WINDOW);
            // the application's clock is ignored: a "now" of 0 would otherwise put the window in 1970
            List<Outcome> out = List.of(store.evaluate(List.of(Check.of("r", "k", two, 1)), 0).get(0),
                    store.evaluate(List.of(Check.of("r", "k", two, 1)), 0).get(0),
                    store.evaluate(List.of(Check.of("r", "k", two, 1)), 0).get(0));
            assertThat(out).extracting(Outcome::allowed).containsExactly(true, true, false);
            assertThat(out.get(2).retryAfterMicros()).isBetween(1L, 3_600_000_000L);
            long windowEnd = (System.currentTimeMillis() / 3_600_000 + 1) * 3_600_000_000L;
            assertThat(out.get(2).retryAfterMicros()).isCloseTo(windowEnd - System.currentTimeMillis() * 1000,
                    org.assertj.core.data.Offset.offset(60_000_000L));
        }
    }

    @Test
    void aRestartedRedisIsUsedAgainWithoutAFailedRequest() throws Exception {
        try (RedisProcess own = RedisProcess.start();
                RedisStore store = RedisStore.builder().url(own.url()).applicationTime(true).build()) {
            Policy p = Policy.parse("100/1s");
            assertThat(store.evaluate(List.of(Check.of("r", "k", p, 1)), T0).get(0).allowed()).isTrue();
            own.restart();                                        // empty memory, no script, stale pooled connection
            assertThat(store.evaluate(List.of(Check.of("r", "k", p, 1)), T0).get(0).remaining()).isEqualTo(99);
        }
    }

    /** GCRA, token bucket, fixed window and leaky bucket keep one Redis integer per key: 80 bytes at most. */
    @Test
    void theCommonAlgorithmsKeepAnIntegerEncodedStateOfAtMost80Bytes() {
        try (RedisStore store = store("sluice")) {
            for (Algorithm a : List.of(Algorithm.GCRA, Algorithm.TOKEN_BUCKET, Algorithm.FIXED_WINDOW,
                    Algorithm.LEAKY_BUCKET)) {
                store.reset("api", "client-12345");
                store.evaluate(List.of(Check.of("api", "client-12345", Policy.of(a, 10, Duration.ofMinutes(1)), 1)), T0);
                String key = store.key("api", "client-12345");
                assertThat(admin.objectEncoding(key)).as("%s", a).isEqualTo("int");
                Object bytes = admin.sendCommand(Protocol.Command.MEMORY, "USAGE", key, "SAMPLES", "0");
                assertThat((Long) bytes).as("MEMORY USAGE of %s (%s)", key, a).isLessThanOrEqualTo(80);
                assertThat(admin.pttl(key)).as("%s", a).isPositive();
            }
        }
    }

    /**
     * A key holding another algorithm's state (a rule whose algorithm changed), or a state written by an older
     * Sluice, reads as a fresh key, as in MemoryStore: the same outcome as on a key never seen.
     */
    @Test
    void anotherAlgorithmsStateOrAnOldFormatReadsAsAFreshKey() {
        List<Algorithm> strings = List.of(Algorithm.GCRA, Algorithm.TOKEN_BUCKET, Algorithm.FIXED_WINDOW,
                Algorithm.LEAKY_BUCKET, Algorithm.SLIDING_WINDOW, Algorithm.WARM_UP, Algorithm.SLIDING_LOG,
                Algorithm.CONCURRENCY);
        // the tagged strings of Sluice 0.1 (and two odd values); "s:" and "w:" are still the sliding window's and warm-up's
        List<String> oldFormats = List.of("g:" + (T0 + 50_000_000), "t:0:" + T0, "f:" + T0 + ":3", "l:" + (T0 + 9_000_000),
                "s:" + T0 + ":3:2", "w:0.5:" + (T0 + 9_000_000), "17", "-");
        try (RedisStore store = store("switch")) {
            long now = T0;
            int n = 0;
            for (Algorithm before : strings) {
                for (Algorithm after : strings) {
                    if (before == after) {
                        continue;
                    }
                    now += 1_000_000;
                    String key = "k" + n++;
                    // the same rule name: the rule's algorithm changed, its keys stayed
                    for (int i = 0; i < 3; i++) {
                        store.evaluate(List.of(check(before, key, i)), now - 3 + i);
                    }
                    assertThat(keys(store.key("rule", key))).as("%s wrote its key", before).hasSize(1);
                    assertThat(store.evaluate(List.of(check(after, key, 0)), now))
                            .as("%s after %s", after, before)
                            .isEqualTo(store.evaluate(List.of(check(after, "fresh" + n, 0)), now));
                }
            }
            for (Algorithm after : strings) {
                for (String old : oldFormats) {
                    if (old.startsWith("s:") && after == Algorithm.SLIDING_WINDOW
                            || old.startsWith("w:") && after == Algorithm.WARM_UP) {
                        continue;
                    }
                    now += 1_000_000;
                    String key = "old" + n++;
                    admin.psetex(store.key("rule", key), 60_000, old);
                    assertThat(store.evaluate(List.of(check(after, key, 0)), now))
                            .as("%s reading %s", after, old)
                            .isEqualTo(store.evaluate(List.of(check(after, "fresh" + n, 0)), now));
                }
            }
        }
    }

    @Test
    void aMalformedStateWrittenByAnotherProgramReadsAsAFreshKeyNotAScriptError() {
        Map<Algorithm, List<String>> malformed = Map.of(
                Algorithm.SLIDING_WINDOW, List.of("s:", "s:abc:def:ghi", "s:1:2", "s:1:2:3:4", "s::::"),
                Algorithm.WARM_UP, List.of("w:", "w:1", "w:x:y", "w:1:2:3"));
        try (RedisStore store = store("malformed")) {
            long now = T0;
            int n = 0;
            for (Map.Entry<Algorithm, List<String>> e : malformed.entrySet()) {
                for (String value : e.getValue()) {
                    now += 1_000_000;
                    String key = "bad" + n++;
                    admin.psetex(store.key("rule", key), 60_000, value);
                    assertThat(store.evaluate(List.of(check(e.getKey(), key, 0)), now))
                            .as("%s reading %s", e.getKey(), value)
                            .isEqualTo(store.evaluate(List.of(check(e.getKey(), "fresh" + n, 0)), now));
                }
            }
        }
    }

    @Test
    void aServerThatAnswersReadOnlyIsLeftAndANewClientConnectsOnTheNextCall() throws Exception {
        try (RedisProcess master = RedisProcess.start();
                RedisProcess replica = RedisProcess.start("--replicaof", "127.0.0.1", Integer.toString(master.port()));
                RedisClient direct = RedisClient.create(replica.url());
                RedisStore store = RedisStore.builder().url(replica.url()).applicationTime(true)
                        .timeout(Duration.ofSeconds(2)).build()) {
            Check check = Check.of("r", "k", Policy.parse("2/1s"), 1);
            assertThatThrownBy(() -> store.evaluate(List.of(check), T0)).isInstanceOf(StoreException.class)
                    .hasMessageContaining("READONLY");
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
            while (sluiceConnections(direct) > 0) {      // the server sees the close a moment after the client
                assertThat(System.nanoTime()).as("the connections to the replica are closed, not kept").isLessThan(deadline);
                Thread.onSpinWait();
            }

            direct.sendCommand(Protocol.Command.REPLICAOF, "NO", "ONE");     // as a failover's new master behind the name
            assertThat(store.evaluate(List.of(check), T0).get(0).allowed()).isTrue();
            assertThat(sluiceConnections(direct)).isEqualTo(1);
        }
    }

    private static long sluiceConnections(RedisClient client) {
        String list = new String((byte[]) client.sendCommand(Protocol.Command.CLIENT, "LIST"),
                java.nio.charset.StandardCharsets.UTF_8);
        return list.lines().filter(l -> l.contains(" name=sluice ")).count();
    }

    @Test
    void aPlusInTheUrlsPasswordIsAPlus() throws Exception {
        try (RedisProcess own = RedisProcess.start("--requirepass", "a+b");
                RedisStore store = RedisStore.builder().url("redis://:a+b@127.0.0.1:" + own.port()).applicationTime(true)
                        .timeout(Duration.ofSeconds(2)).build()) {
            assertThat(store.evaluate(List.of(Check.of("r", "k", Policy.parse("2/1s"), 1)), T0).get(0).allowed()).isTrue();
        }
    }

    private static Check check(Algorithm a, String key, int i) {
        Policy p = switch (a) {
            case CONCURRENCY -> Policy.concurrent(3);
            case SLIDING_LOG -> Policy.parse("3/1m min-interval 0s");
            case WARM_UP -> Policy.parse("3/1m warm-up 10s");
            default -> Policy.of(a, 3, Duration.ofMinutes(1));
        };
        return new Check("rule", key, p, 1, false, a == Algorithm.CONCURRENCY ? "lease-" + key + "-" + i : null);
    }

    /** Evaluates the same request in {@code memory} and in Redis, asserts the outcomes are equal, and returns them. */
    private static List<Outcome> agree(MemoryStore memory, RedisStore store, long now, Check... checks) {
        List<Outcome> m = memory.evaluate(List.of(checks), now);
        List<Outcome> r = store.evaluate(List.of(checks), now);
        assertThat(r).as("Redis vs memory at %d for %s", now, List.of(checks)).isEqualTo(m);
        return r;
    }

    private static MemoryStore memory() {
        return MemoryStore.builder().timeSource(new ManualTimeSource()).build();
    }

    /**
     * At the largest bucket span the policy allows (capacity x interval just below 2^52 µs), a full bucket's stored
     * time still has 16 digits and stays exact: the next request is denied in Redis as in memory.
     */
    @Test
    void theLargestBucketSpanStillReadsItsStateBackExactly() {
        long now = 1_699_920_000_000_000L;
        try (RedisStore store = store("span"); MemoryStore memory = memory()) {
            for (Algorithm a : List.of(Algorithm.GCRA, Algorithm.LEAKY_BUCKET, Algorithm.TOKEN_BUCKET)) {
                Policy p = Policy.parse("1/1d burst 52124").withAlgorithm(a);
                assertThat(agree(memory, store, now, Check.of(a.id(), "k", p, 52_124)).get(0).allowed()).as("%s", a)
                        .isTrue();
                for (long t = now + 1; t < now + 4; t++) {
                    assertThat(agree(memory, store, t, Check.of(a.id(), "k", p, 1)).get(0).allowed()).as("%s", a)
                            .isFalse();
                }
                assertThat(agree(memory, store, now + 86_400_000_000L, Check.of(a.id(), "k", p, 1)).get(0).allowed())
                        .as("%s one interval later", a).isTrue();
            }
        }
    }

    /** A sliding log takes one member per permit: a cost of thousands is written in chunks, all or nothing. */
    @Test
    void aSlidingLogWithALargeCostIsWrittenAllOrNothing() {
        try (RedisStore store = store("biglog"); MemoryStore memory = memory()) {
            Policy gcra = Policy.parse("10/1s");
            Policy log = Policy.parse("20000/10s").withAlgorithm(Algorithm.SLIDING_LOG);
            List<Outcome> first = agree(memory, store, T0, Check.of("g", "k", gcra, 1), Check.of("l", "k", log, 15_000));
            assertThat(first).extracting(Outcome::allowed).containsExactly(true, true);
            assertThat(admin.zcard(store.key("l", "k"))).isEqualTo(15_000);
            // the log is now too full: the request is denied and the GCRA key is not written
            List<Outcome> second = agree(memory, store, T0 + 1, Check.of("g", "k", gcra, 1),
                    Check.of("l", "k", log, 6_000));
            assertThat(second).extracting(Outcome::allowed).containsExactly(true, false);
            assertThat(agree(memory, store, T0 + 2, Check.of("g", "k", gcra, 1)).get(0).remaining()).isEqualTo(8);
            assertThat(admin.zcard(store.key("l", "k"))).isEqualTo(15_000);
            assertThat(agree(memory, store, T0 + 3, Check.of("l", "k", log, 5_000)).get(0).allowed()).isTrue();
            assertThat(admin.zcard(store.key("l", "k"))).isEqualTo(20_000);
        }
    }

    /** A limit lowered under the same rule name while state exists: remaining is 0, never negative. */
    @Test
    void aLoweredLimitLeavesZeroRemainingNotANegativeNumber() {
        try (RedisStore store = store("lowered"); MemoryStore memory = memory()) {
            for (Algorithm a : List.of(Algorithm.FIXED_WINDOW, Algorithm.SLIDING_LOG, Algorithm.CONCURRENCY)) {
                Policy big = a == Algorithm.CONCURRENCY ? Policy.concurrent(100) : Policy.parse("100/1m").withAlgorithm(a);
                Policy small = a == Algorithm.CONCURRENCY ? Policy.concurrent(10) : Policy.parse("10/1m").withAlgorithm(a);
                String lease = a == Algorithm.CONCURRENCY ? "l1" : null;
                assertThat(agree(memory, store, T0, new Check(a.id(), "k", big, 50, false, lease)).get(0).allowed())
                        .isTrue();
                for (long cost : new long[] {0, 1, 11}) {
                    Outcome o = agree(memory, store, T0 + 1, new Check(a.id(), "k", small, cost, false,
                            a == Algorithm.CONCURRENCY ? "l2" : null)).get(0);
                    assertThat(o.remaining()).as("%s cost %d", a, cost).isZero();
                    assertThat(o.allowed()).as("%s cost %d (over the new limit)", a, cost).isFalse();
                }
            }
        }
    }

    /** A token bucket whose capacity was lowered holds at most the new capacity, even before the next refill. */
    @Test
    void aLoweredTokenBucketCapacityCapsTheStoredTokens() {
        try (RedisStore store = store("tokens"); MemoryStore memory = memory()) {
            Policy big = Policy.parse("10/1s burst 100").withAlgorithm(Algorithm.TOKEN_BUCKET);
            Policy small = Policy.parse("10/1s burst 10").withAlgorithm(Algorithm.TOKEN_BUCKET);
            assertThat(agree(memory, store, T0, Check.of("t", "k", big, 1)).get(0).remaining()).isEqualTo(99);
            Outcome o = agree(memory, store, T0, Check.of("t", "k", small, 1)).get(0);
            assertThat(o.allowed()).isTrue();
            assertThat(o.remaining()).isEqualTo(9);
            assertThat(agree(memory, store, T0, Check.of("t", "k", small, 10)).get(0).allowed()).isFalse();
        }
    }

    /**
     * On Redis as in memory, a shadow queue's wait comes back as its own check's outcome, and nothing in the script
     * folds it into another check's: the engine derives the request's delay from the enforced rules alone, so a shadow
     * queue holds no request, and reports the wait it would have imposed.
     */
    @Test
    void aShadowQueueOnRedisReportsItsWaitAndDelaysNoRequest() {
        io.sluice.core.testing.ManualTimeSource time = new io.sluice.core.testing.ManualTimeSource();
        try (RedisStore store = store("shadow-queue")) {
            io.sluice.core.Engine engine = io.sluice.core.Engine.builder().timeSource(time).store(store)
                    .rule(io.sluice.core.Rule.builder("trial-queue").policy("1/1s burst 10 max-wait 1m")
                            .key(request -> "k").shadow().build())
                    .rule(io.sluice.core.Rule.builder("queue").policy("2/1s burst 10 max-wait 1m")
                            .key(request -> "k").build())
                    .rule(io.sluice.core.Rule.builder("in-flight").policy(Policy.concurrent(5))
                            .key(request -> "global").build())
                    .build();
            io.sluice.core.request.RequestView request = io.sluice.core.request.RequestView.builder("GET", "/").build();
            List<io.sluice.core.Decision> decisions = new java.util.ArrayList<>();
            for (int i = 0; i < 3; i++) {                     // at one instant: the queues fill up
                decisions.add(engine.check(request));
            }

            assertThat(decisions).extracting(io.sluice.core.Decision::delayMicros).as("the enforced queue's turns")
                    .containsExactly(0L, 500_000L, 1_000_000L);
            assertThat(decisions).extracting(io.sluice.core.Decision::shadowDelayMicros)
                    .as("the shadow queue's would-be turns").containsExactly(0L, 1_000_000L, 2_000_000L);
            assertThat(decisions).allSatisfy(d -> assertThat(d.leases()).hasSize(1));
            decisions.forEach(engine::release);
            assertThat(engine.inspect("in-flight", "global", null).remaining()).isEqualTo(5);
        }
    }

    @Test
    void leasesAreReleasedAndResetForgetsAKey() {
        try (RedisStore store = store("leases")) {
            Policy one = Policy.concurrent(1);
            assertThat(store.evaluate(List.of(new Check("c", "k", one, 1, false, "a")), T0).get(0).allowed()).isTrue();
            assertThat(store.evaluate(List.of(new Check("c", "k", one, 1, false, "b")), T0).get(0).allowed()).isFalse();
            store.release(List.of(new Lease("c", "k", one, "a")), T0);
            assertThat(store.evaluate(List.of(new Check("c", "k", one, 1, false, "b")), T0).get(0).allowed()).isTrue();
            store.reset("c", "k");
            assertThat(keys("leases:*")).isEmpty();
        }
    }

    @Test
    void badUrlsFailNamingTheParameterWithoutThePassword() {
        assertThatThrownBy(() -> RedisStore.builder().url("http://localhost:6379").build())
                .isInstanceOf(ConfigException.class).hasMessageStartingWith("url(...): ").hasMessageContaining("redis://");
        assertThatThrownBy(() -> RedisStore.builder().url("redis://user:s3cret@host:6379/x").build())
                .isInstanceOf(ConfigException.class).hasMessageContaining("database").hasMessageNotContaining("s3cret");
        assertThatThrownBy(() -> RedisStore.builder().prefix("bad prefix")).isInstanceOf(ConfigException.class);
        assertThatThrownBy(() -> RedisStore.builder().cluster(Set.of("nohost"))).isInstanceOf(ConfigException.class)
                .hasMessageContaining("host:port");
        assertThat(RedisUrl.parse("rediss://:pw@redis.internal:6380/2").toString())
                .isEqualTo("rediss://:***@redis.internal:6380/2");
    }

    @Test
    void anUnreachableRedisIsAStoreExceptionWithinTheTimeBudget() throws Exception {
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            port = s.getLocalPort();
        }
        try (RedisStore store = RedisStore.builder().url("redis://127.0.0.1:" + port)
                .timeout(Duration.ofMillis(50)).build()) {
            assertThatThrownBy(() -> store.evaluate(List.of(Check.of("r", "k", Policy.parse("1/s"), 1)), T0))
                    .isInstanceOf(StoreException.class);
        }
    }

    @Test
    void aCallThatTimedOutIsNotSentAgainSoTheRequestCountsAtMostOnce() throws Exception {
        // a script that keeps Redis busy for 400 ms: the store's call times out (50 ms), and may run afterwards
        String busy = "local s = redis.call('TIME') while true do local t = redis.call('TIME')"
                + " if (t[1] - s[1]) * 1000000 + (t[2] - s[2]) > 400000 then return 1 end end";
        Policy ten = Policy.parse("10/1h");
        RedisClient client = RedisClient.builder().hostAndPort(new HostAndPort("127.0.0.1", redis.port()))
                .clientConfig(DefaultJedisClientConfig.builder().socketTimeoutMillis(50).build()).build();
        client.getPool().addObjects(3);   // idle connections ready, so a retry would be sent at once
        try (client;
                RedisStore store = RedisStore.builder().client(client).applicationTime(true).prefix("timeout").build();
                RedisClient slow = RedisClient.builder().hostAndPort(new HostAndPort("127.0.0.1",
                        redis.port())).clientConfig(DefaultJedisClientConfig.builder()
                        .socketTimeoutMillis(10_000).build()).build();
                RedisClient probe = RedisClient.builder().hostAndPort(new HostAndPort("127.0.0.1",
                        redis.port())).clientConfig(DefaultJedisClientConfig.builder()
                        .socketTimeoutMillis(20).build()).build()) {
            assertThat(store.evaluate(List.of(Check.of("r", "k", ten, 1)), T0).get(0).remaining()).isEqualTo(9);
            java.util.concurrent.CompletableFuture<Object> script =
                    java.util.concurrent.CompletableFuture.supplyAsync(() -> slow.eval(busy));
            for (int i = 0; i < 1_000 && isResponsive(probe); i++) {
                // wait until the busy script holds the server (a 20 ms ping times out)
            }
            assertThatThrownBy(() -> store.evaluate(List.of(Check.of("r", "k", ten, 1)), T0))
                    .isInstanceOf(StoreException.class);
            assertThat(script.get(10, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(1L);
            admin.ping();
            // The timed-out call counts at most once: a retry would take a second permit (remaining 7). Whether the
            // call itself runs is the server's: Redis 6.2 and 7.0 run it after the busy script (8), Valkey 8.0 and
            // Redis 8.0 drop the command of a client that closed its connection meanwhile (9).
            assertThat(store.evaluate(List.of(Check.of("r", "k", ten, 0)), T0).get(0).remaining())
                    .as("remaining: the timed-out call counted once (8) or never (9), not twice").isBetween(8L, 9L);
        }
    }

    private static boolean isResponsive(RedisClient probe) {
        try {
            probe.ping();
            return true;
        } catch (JedisException e) {
            return false;
        }
    }

    private static List<String> keys(String pattern) {
        ScanResult<String> r = admin.scan("0", new ScanParams().match(pattern).count(10_000));
        return r.getResult();
    }
}
