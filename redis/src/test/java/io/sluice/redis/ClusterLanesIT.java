package io.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.sluice.core.policy.Policy;
import io.sluice.core.store.Check;
import io.sluice.core.testing.Await;
import io.sluice.core.testing.RedisProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * Coalescing on a real Redis Cluster of three masters: lanes per master node, a batch whose keys live in several slots
 * of its node sent in one call, and sent again slot by slot, exactly once, where a slot moved under it.
 */
class ClusterLanesIT {

    private static final Duration BOUND = Duration.ofSeconds(60);
    private static TestCluster cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = TestCluster.start();
    }

    @AfterAll
    static void stopCluster() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void requestsOfKeysInDistinctSlotsAreBatchedPerNodeAndCountedExactly() throws Exception {
        Policy policy = Policy.parse("3/366d burst 3");
        try (RedisStore redis = store("distinct")) {
            int threads = 32;
            String[][] keys = distinctSlots(redis, threads, 24);    // no two requests at a time share a slot
            AtomicInteger admitted = new AtomicInteger();
            run(threads, t -> {
                for (int round = 0; round < 5; round++) {
                    for (String key : keys[t]) {
                        if (redis.evaluate(List.of(Check.of("r", key, policy, 1)), 0).get(0).allowed()) {
                            admitted.incrementAndGet();
                        }
                    }
                }
            });
            assertThat(admitted.get()).as("3 of 5 per key, %d keys", threads * 24).isEqualTo(threads * 24 * 3);
            // with a lane per slot no two of these requests could share a batch: each key is asked by one thread
            if (functions()) {
                assertThat(redis.coalesced()[0]).as("batch calls").isPositive();
            } else {
                assertThat(redis.coalesced()[0]).as("batch calls: Redis 6.2 keeps a lane per slot").isZero();
            }
        }
    }

    @Test
    void aBatchThatMeetsAMovedSlotIsSentSlotBySlotAndCountedOnce() throws Exception {
        assumeThat(functions()).as("functions (Redis 7): scripts on 6.2 keep a lane per slot").isTrue();
        long limit = 100_000;       // a permit every 316 s: no refill while the test runs, every request admitted
        Policy policy = Policy.parse(limit + "/366d burst " + limit);
        try (RedisStore redis = store("moved")) {
            int threads = 24;
            String[] onSource = sourceKeys(redis, threads);     // distinct slots, all on the first master
            int slot = JedisClusterCRC16.getSlot(redis.key("r", onSource[0]));
            long[] asked = new long[threads];
            long[] remaining = new long[threads];
            for (int t = 0; t < threads; t++) {     // each slot's lane looked up, on the first master; the keys written
                remaining[t] = redis.evaluate(List.of(Check.of("r", onSource[t], policy, 1)), 0).get(0).remaining();
                asked[t] = 1;
            }
            migrate(slot, cluster.nodes().get(0), cluster.nodes().get(1));
            AtomicBoolean stop = new AtomicBoolean();
            List<Thread> running = start(threads, t -> {
                while (!stop.get()) {
                    remaining[t] = redis.evaluate(List.of(Check.of("r", onSource[t], policy, 1)), 0).get(0)
                            .remaining();
                    asked[t]++;
                }
            });
            try {
                Await.until("a batch across slots sent again slot by slot", BOUND, () -> redis.coalesced()[2] > 0);
            } finally {
                stop.set(true);
                for (Thread thread : running) {
                    thread.join(BOUND.toMillis());
                }
            }
            for (int t = 0; t < threads; t++) {     // the moved key's and the others': each request counted once
                assertThat(remaining[t]).as("%s (slot %d moved) after %d requests", onSource[t], slot, asked[t])
                        .isEqualTo(limit - asked[t]);
            }
        }
    }

    private static RedisStore store(String prefix) {
        return RedisStore.builder().cluster(cluster.seeds()).prefix(prefix).poolSize(24)
                .timeout(Duration.ofSeconds(2)).build();
    }

    /** Moves {@code slot} and its keys from {@code source} to {@code target}, as redis-cli --cluster reshard does. */
    private static void migrate(int slot, RedisProcess source, RedisProcess target) {
        try (Jedis from = new Jedis("127.0.0.1", source.port()); Jedis to = new Jedis("127.0.0.1", target.port())) {
            String fromId = from.clusterMyId();
            String toId = to.clusterMyId();
            to.clusterSetSlotImporting(slot, fromId);
            from.clusterSetSlotMigrating(slot, toId);
            for (String key : from.clusterGetKeysInSlot(slot, 1000)) {
                from.migrate("127.0.0.1", target.port(), key, 0, 5000);
            }
            to.clusterSetSlotNode(slot, toId);
            from.clusterSetSlotNode(slot, toId);
            for (RedisProcess node : cluster.nodes()) {
                try (Jedis j = new Jedis("127.0.0.1", node.port())) {
                    j.clusterSetSlotNode(slot, toId);
                }
            }
        }
    }

    /** @return {@code perThread} keys for each of {@code threads} threads, no two of them in one hash slot */
    private static String[][] distinctSlots(RedisStore redis, int threads, int perThread) {
        Set<Integer> slots = new HashSet<>();
        String[][] keys = new String[threads][perThread];
        int k = 0;
        for (int t = 0; t < threads; t++) {
            for (int i = 0; i < perThread; k++) {
                if (slots.add(JedisClusterCRC16.getSlot(redis.key("r", "k" + k)))) {
                    keys[t][i++] = "k" + k;
                }
            }
        }
        return keys;
    }

    /** @return {@code n} keys in distinct hash slots of the first master (slots 0 to 5460) */
    private static String[] sourceKeys(RedisStore redis, int n) {
        Set<Integer> slots = new HashSet<>();
        String[] keys = new String[n];
        for (int k = 0, i = 0; i < n; k++) {
            int slot = JedisClusterCRC16.getSlot(redis.key("r", "s" + k));
            if (slot <= 5460 && slots.add(slot)) {
                keys[i++] = "s" + k;
            }
        }
        return keys;
    }

    private interface Body {
        void run(int thread) throws Exception;
    }

    private static List<Thread> start(int threads, Body body) {
        List<Thread> started = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            Thread thread = new Thread(() -> {
                try {
                    body.run(id);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            thread.start();
            started.add(thread);
        }
        return started;
    }

    private static void run(int threads, Body body) throws InterruptedException {
        for (Thread thread : start(threads, body)) {
            thread.join(BOUND.toMillis());
        }
    }

    private static boolean functions() {
        String version = RedisProcess.version(cluster.nodes().get(0).url());
        return Integer.parseInt(version.substring(0, version.indexOf('.'))) >= 7;
    }
}
