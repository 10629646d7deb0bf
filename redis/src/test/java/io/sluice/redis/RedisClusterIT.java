package io.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.sluice.core.store.Check;
import io.sluice.core.store.Lease;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.Decision;
import io.sluice.core.Engine;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import io.sluice.core.request.RequestView;
import io.sluice.core.Rule;
import io.sluice.core.testing.ManualTimeSource;
import io.sluice.core.testing.RedisProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.resps.LibraryInfo;
import redis.clients.jedis.util.JedisClusterCRC16;

/** RedisStore on a real Redis Cluster of three masters, started by the test. */
class RedisClusterIT {

    private static final long T0 = ManualTimeSource.START_MICROS;
    private static TestCluster cluster;
    /** The three masters, in the order of their slots. */
    private static List<RedisProcess> nodes = List.of();

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = TestCluster.start();
        nodes = cluster.nodes();
    }

    @AfterAll
    static void stopCluster() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static Set<String> seeds() {
        return cluster.seeds();
    }

    @Test
    void requestsWhoseKeysLiveOnDifferentMastersAgreeWithMemory() {
        try (RedisStore redis = RedisStore.builder().cluster(seeds()).applicationTime(true).prefix("spread")
                .timeout(Duration.ofSeconds(2)).build()) {
            // memory's idle expiry on the test's clock: with the system clock, states stamped T0 read as expired
            MemoryStore memory = MemoryStore.builder().timeSource(new ManualTimeSource()).build();
            Policy perKey = Policy.parse("5/1s");
            Policy perUser = Policy.parse("3/1s burst 3");
            Random random = new Random(7);
            Set<Integer> slots = new LinkedHashSet<>();
            long now = T0;
            for (int i = 0; i < 500; i++) {
                now += random.nextInt(200_000);
                String key = "client-" + random.nextInt(20);
                List<Check> checks = List.of(Check.of("per-key", key, perKey, 1), Check.of("per-user", "u" + key, perUser, 1));
                checks.forEach(c -> slots.add(JedisClusterCRC16.getSlot(redis.key(c.rule(), c.key())) * 3 / 16384));
                List<Outcome> expected = memory.evaluate(checks, now);
                List<Outcome> actual = redis.evaluate(checks, now);
                if (expected.stream().allMatch(Outcome::allowed) || expected.stream().noneMatch(Outcome::allowed)) {
                    // where the two rules agree, per-slot all-or-nothing is the same as memory's
                    assertThat(actual).as("request %d", i).isEqualTo(expected);
                }
            }
            assertThat(slots).as("keys spread over all three masters").hasSize(3);
        }
    }

    @Test
    void withTheHashTagEveryRequestIsAllOrNothing() {
        try (RedisStore redis = RedisStore.builder().cluster(seeds()).applicationTime(true).prefix("tagged")
                .hashTag(true).timeout(Duration.ofSeconds(2)).build()) {
            agreesWithMemoryInOneSlot(redis);
        }
    }

    /**
     * Four rules whose keys share the hash tag (one slot) go to Redis as one script call per decision, all on the tag's
     * master; without the tag the same request is one call per slot, which the same count tells apart.
     */
    @Test
    void fourTaggedRulesAreOneScriptCallPerDecision() {
        Policy policy = Policy.parse("1000/1s");
        try (RedisStore tagged = RedisStore.builder().cluster(seeds()).prefix("one-call").hashTag(true)
                .timeout(Duration.ofSeconds(2)).build();
                RedisStore spread = RedisStore.builder().cluster(seeds()).prefix("one-call")
                        .timeout(Duration.ofSeconds(2)).build()) {
            assertThat(fourRules("client-0", policy).stream().map(c -> JedisClusterCRC16.getSlot(tagged.key(c.rule(),
                    c.key()))).distinct()).as("the tagged keys' slots").hasSize(1);
            assertThat(decide(tagged, policy, 100)).as("script calls per master, 100 decisions of four tagged rules")
                    .containsExactlyInAnyOrder(100L, 0L, 0L);
            assertThat(Arrays.stream(decide(spread, policy, 100)).sum())
                    .as("the same decisions without the tag: one call per slot").isGreaterThan(300);
        }
    }

    private static List<Check> fourRules(String key, Policy policy) {
        return List.of(Check.of("r1", key, policy, 1), Check.of("r2", key, policy, 1), Check.of("r3", key, policy, 1),
                Check.of("r4", key, policy, 1));
    }

    /**
     * Makes {@code n} decisions of four rules, one after the other, after one that loads the script where it is
     * missing (another test flushes it).
     *
     * @return the {@code FCALL} and {@code EVALSHA} calls each master counted for the {@code n}, in the order of
     *     {@link #nodes}
     */
    private static long[] decide(RedisStore redis, Policy policy, int n) {
        assertThat(redis.evaluate(fourRules("client-warm", policy), 0)).allMatch(Outcome::allowed);
        long[] before = scriptCallsPerMaster();
        for (int i = 0; i < n; i++) {
            assertThat(redis.evaluate(fourRules("client-" + i, policy), 0)).hasSize(4).allMatch(Outcome::allowed);
        }
        long[] after = scriptCallsPerMaster();
        Arrays.setAll(after, i -> after[i] - before[i]);
        return after;
    }

    private static long[] scriptCallsPerMaster() {
        return nodes.stream().mapToLong(node -> CommandStats.of(node.url()).scriptCalls()).toArray();
    }

    @Test
    void aClusterUrlConfiguresTheSameStore() {
        // what web.xml or SLUICE_STORE can say: the seed nodes, and the builder's settings as options
        String url = "redis-cluster://" + String.join(",", seeds()) + "?time=application&timeout=2s&prefix=tagged-url"
                + "&hash-tag=true";
        try (RedisStore redis = RedisStore.builder().url(url).build()) {
            agreesWithMemoryInOneSlot(redis);
            assertThat(redis.key("loose", "a")).matches("\\{tagged-url}:loose:#[A-Za-z0-9_-]{16}");
        }
    }

    private static void agreesWithMemoryInOneSlot(RedisStore redis) {
        // memory's idle expiry on the test's clock: with the system clock, states stamped T0 read as expired
        MemoryStore memory = MemoryStore.builder().timeSource(new ManualTimeSource()).build();
        Policy loose = Policy.parse("100/1s");
        Policy tight = Policy.parse("1/1m");
        Random random = new Random(11);
        long now = T0;
        for (int i = 0; i < 300; i++) {
            now += random.nextInt(50_000);
            String key = "client-" + random.nextInt(10);
            List<Check> checks = List.of(Check.of("loose", key, loose, 1), Check.of("tight", "t" + key, tight, 1));
            assertThat(redis.evaluate(checks, now)).as("request %d", i).isEqualTo(memory.evaluate(checks, now));
        }
        assertThat(JedisClusterCRC16.getSlot(redis.key("loose", "a"))).isEqualTo(JedisClusterCRC16.getSlot(redis.key("tight", "zz")));
    }

    @Test
    void acrossSlotsEachGroupIsAtomicAndAFlushedScriptIsSentAgain() throws Exception {
        try (RedisStore redis = RedisStore.builder().cluster(seeds()).applicationTime(true).prefix("groups")
                .timeout(Duration.ofSeconds(2)).build()) {
            String a = "a";
            String b = "b";
            int i = 0;
            while (master(redis.key("open", a)) == master(redis.key("shut", b))) {
                b = "b" + i++;                                   // keys on two different masters
            }
            for (RedisProcess node : nodes) {
                try (Jedis j = new Jedis("127.0.0.1", node.port())) {
                    j.scriptFlush();
                    if (functions()) {
                        j.functionFlush();
                    }
                }
            }
            Policy open = Policy.parse("10/1h");
            Policy shut = Policy.parse("1/1h");
            List<Check> request = List.of(Check.of("open", a, open, 1), Check.of("shut", b, shut, 1));
            assertThat(redis.evaluate(request, T0)).extracting(Outcome::allowed).containsExactly(true, true);
            List<Outcome> second = redis.evaluate(request, T0);
            assertThat(second).extracting(Outcome::allowed).containsExactly(true, false);
            // documented: across slots the other group's consumption is not undone (memory would leave 9)
            assertThat(second.get(0).remaining()).isEqualTo(8);
            if (functions()) {
                for (String key : List.of(redis.key("open", a), redis.key("shut", b))) {
                    try (Jedis j = new Jedis("127.0.0.1", nodes.get(master(key)).port())) {
                        assertThat(j.functionList()).as("the function loaded on the master of %s", key)
                                .extracting(LibraryInfo::getLibraryName).containsExactly(ScriptLibrary.function());
                    }
                }
            }
        }
    }

    @Test
    void aUserWhoseAclDeniesFunctionsIsServedWithEvalshaOnEveryMaster() throws Exception {
        assumeThat(functions()).as("FCALL is a Redis 7 command").isTrue();
        for (RedisProcess node : nodes) {
            try (Jedis j = new Jedis("127.0.0.1", node.port())) {
                j.aclSetUser("nofcall", "on", ">pw", "~*", "+@all", "-fcall");
                j.configResetStat();
            }
        }
        try (RedisStore redis = RedisStore.builder().cluster(seeds()).credentials("nofcall", "pw").applicationTime(true)
                .prefix("acl").timeout(Duration.ofSeconds(2)).build()) {
            String a = "a";
            String b = "b";
            for (int i = 0; master(redis.key("one", a)) == master(redis.key("two", b)); i++) {
                b = "b" + i;                                    // keys on two different masters: a pipeline
            }
            Policy two = Policy.parse("2/1h");
            List<Check> request = List.of(Check.of("one", a, two, 1), Check.of("two", b, two, 1));
            assertThat(redis.evaluate(request, T0)).extracting(Outcome::remaining).containsExactly(1L, 1L);
            assertThat(redis.evaluate(request, T0)).extracting(Outcome::remaining).containsExactly(0L, 0L);
            long evalsha = 0;
            for (RedisProcess node : nodes) {
                CommandStats stats = CommandStats.of("redis://127.0.0.1:" + node.port());
                assertThat(stats.failed().getOrDefault("fcall", 0L)).isZero();
                evalsha += stats.calls("evalsha");
            }
            assertThat(evalsha).as("both requests, both groups").isGreaterThanOrEqualTo(4);
        }
    }

    /**
     * Coalescing in a Cluster: one lane per hash slot. 24 threads on two hot keys whose slots live on two masters,
     * 2400 requests each: exactly each key's limit is admitted, and requests were sent in batches.
     */
    @Test
    void coalescedRequestsOfTwoSlotsAreAdmittedToTheLastPermit() throws Exception {
        Policy policy = Policy.parse("500/366d burst 500");
        try (RedisStore redis = RedisStore.builder().cluster(seeds()).prefix("lanes").poolSize(24)
                .timeout(Duration.ofSeconds(2)).build()) {
            String first = "alpha";
            String second = null;
            for (int k = 0; second == null; k++) {         // a key whose (hashed) Redis key lives on another master
                if (master(redis.key("hot", "k" + k)) != master(redis.key("hot", first))) {
                    second = "k" + k;
                }
            }
            String[] both = {first, second};
            AtomicInteger[] admitted = {new AtomicInteger(), new AtomicInteger()};
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 24; t++) {
                int which = t % 2;
                Thread thread = new Thread(() -> {
                    for (int i = 0; i < 200; i++) {
                        if (redis.evaluate(List.of(Check.of("hot", both[which], policy, 1)), 0).get(0).allowed()) {
                            admitted[which].incrementAndGet();
                        }
                    }
                });
                thread.start();
                threads.add(thread);
            }
            for (Thread thread : threads) {
                thread.join(60_000);
            }
            assertThat(admitted[0].get()).as("%s, of 2400", first).isEqualTo(500);
            assertThat(admitted[1].get()).as("%s, of 2400", second).isEqualTo(500);
            assertThat(redis.coalesced()[0]).as("batch calls").isPositive();
        }
    }

    /** @return the index in {@link #nodes} of the master of {@code key}'s hash slot */
    private static int master(String key) {
        return JedisClusterCRC16.getSlot(key) * 3 / 16384;
    }

    /** @return whether the cluster's nodes are Redis 7 or later, which have functions */
    private static boolean functions() {
        String version = RedisProcess.version(nodes.get(0).url());
        return Integer.parseInt(version.substring(0, version.indexOf('.'))) >= 7;
    }

    @Test
    void leasesOnSeveralMastersAndOnHashedKeysAreTakenAndReleased() {
        try (RedisStore redis = RedisStore.builder().cluster(seeds()).applicationTime(true).prefix("leases")
                .timeout(Duration.ofSeconds(2)).build()) {
            Policy one = Policy.concurrent(1);
            List<String> keys = List.of("a", "b", "c", "d", "e", "\u0000{odd}" + "x".repeat(300));
            assertThat(redis.key("conn", keys.get(5))).as("an unsafe key is stored under its hash").contains(":#");
            Set<Integer> masters = new LinkedHashSet<>();
            keys.forEach(k -> masters.add(JedisClusterCRC16.getSlot(redis.key("conn", k)) * 3 / 16384));
            assertThat(masters).as("the keys live on more than one master").hasSizeGreaterThan(1);

            List<Check> first = leases(keys, one, "first");
            assertThat(redis.evaluate(first, T0)).allMatch(Outcome::allowed);
            assertThat(redis.evaluate(leases(keys, one, "second"), T0)).noneMatch(Outcome::allowed);

            redis.release(first.stream().map(c -> new Lease(c.rule(), c.key(), c.policy(), c.leaseId())).toList(), T0);
            assertThat(redis.evaluate(leases(keys, one, "third"), T0)).as("every lease was released, on every master")
                    .allMatch(Outcome::allowed);
        }
    }

    @Test
    void anAttemptACountedRuleDeniesConsumesNothingFromARuleOnAnotherMaster() {
        ManualTimeSource clock = new ManualTimeSource();
        try (RedisStore redis = RedisStore.builder().cluster(seeds()).applicationTime(true).prefix("counted")
                .timeout(Duration.ofSeconds(2)).build()) {
            String client = "a";
            for (int i = 0; JedisClusterCRC16.getSlot(redis.key("failed-logins", client)) * 3 / 16384
                    == JedisClusterCRC16.getSlot(redis.key("global", "all")) * 3 / 16384; i++) {
                client = "a" + i;                               // the two rules' keys on two different masters
            }
            Engine engine = Engine.builder().timeSource(clock).store(redis).rules(List.of(
                    Rule.builder("failed-logins").policy(Policy.parse("2/1m")).key(RequestView::remoteAddress)
                            .countStatuses(Set.of(401)).build(),
                    Rule.builder("global").policy(Policy.parse("100/1m")).key(r -> "all").build())).build();
            for (int i = 0; i < 2; i++) {
                RequestView attempt = RequestView.builder("POST", "/sign-in").remoteAddress(client).build();
                engine.charge(attempt, engine.check(attempt), 401);
            }
            for (int i = 0; i < 5; i++) {
                Decision d = engine.check(RequestView.builder("POST", "/sign-in").remoteAddress(client).build());
                assertThat(d.allowed()).isFalse();
                assertThat(d.binding().rule().name()).isEqualTo("failed-logins");
            }
            assertThat(engine.inspect("global", "all", null).remaining())
                    .as("only the two admitted attempts, though each call is atomic per slot only").isEqualTo(98);
        }
    }

    @Test
    @SuppressWarnings("deprecation")        // JedisCluster: deprecated in Jedis 8, still what many applications hold
    void anApplicationsJedisClusterIsUsedAsACluster() {
        Set<redis.clients.jedis.HostAndPort> seeds = new LinkedHashSet<>();
        nodes.forEach(n -> seeds.add(new redis.clients.jedis.HostAndPort("127.0.0.1", n.port())));
        try (redis.clients.jedis.JedisCluster own = new redis.clients.jedis.JedisCluster(seeds);
                RedisStore redis = RedisStore.builder().client(own).applicationTime(true).prefix("own").build()) {
            String a = "a";
            String b = "b";
            for (int i = 0; JedisClusterCRC16.getSlot(redis.key("one", a)) * 3 / 16384
                    == JedisClusterCRC16.getSlot(redis.key("two", b)) * 3 / 16384; i++) {
                b = "b" + i;                                    // keys on two different masters
            }
            Policy one = Policy.concurrent(1);
            List<Check> request = List.of(new Check("one", a, one, 1, false, "l1"), new Check("two", b, one, 1, false, "l2"));
            assertThat(redis.evaluate(request, T0)).as("not CROSSSLOT").allMatch(Outcome::allowed);
            redis.release(request.stream().map(c -> new Lease(c.rule(), c.key(), c.policy(), c.leaseId())).toList(), T0);
            assertThat(redis.evaluate(List.of(new Check("one", a, one, 1, false, "l3"),
                    new Check("two", b, one, 1, false, "l4")), T0)).as("both released").allMatch(Outcome::allowed);
        }
    }

    private static List<Check> leases(List<String> keys, Policy policy, String round) {
        return keys.stream().map(k -> new Check("conn", k, policy, 1, false, round + "-" + k.length() + k.charAt(0)))
                .toList();
    }
}
