package io.sluice.redis;

import io.sluice.core.testing.RedisProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import redis.clients.jedis.Jedis;

/**
 * A real Redis Cluster of three masters on loopback ports, each a third of the slots, started by a test and stopped
 * when it closes. Starting waits (bounded) until every node sees the cluster formed.
 */
final class TestCluster implements AutoCloseable {

    private static final Duration FORMING = Duration.ofSeconds(30);

    private final List<RedisProcess> nodes = new ArrayList<>();

    private TestCluster() {}

    static TestCluster start() throws Exception {
        TestCluster cluster = new TestCluster();
        try {
            cluster.form();
            return cluster;
        } catch (Exception | AssertionError e) {
            cluster.close();
            throw e;
        }
    }

    private void form() throws Exception {
        for (int i = 0; i < 3; i++) {
            nodes.add(RedisProcess.startClusterNode("--cluster-node-timeout", "2000"));
        }
        int[][] ranges = {{0, 5460}, {5461, 10922}, {10923, 16383}};
        for (int i = 0; i < 3; i++) {
            try (Jedis j = new Jedis("127.0.0.1", nodes.get(i).port())) {
                int[] slots = new int[ranges[i][1] - ranges[i][0] + 1];
                for (int s = 0; s < slots.length; s++) {
                    slots[s] = ranges[i][0] + s;
                }
                j.clusterAddSlots(slots);
                for (RedisProcess other : nodes) {
                    j.clusterMeet("127.0.0.1", other.port());
                }
            }
        }
        long deadline = System.nanoTime() + FORMING.toNanos();
        for (RedisProcess node : nodes) {
            try (Jedis j = new Jedis("127.0.0.1", node.port())) {
                while (!j.clusterInfo().contains("cluster_state:ok")
                        || !j.clusterInfo().contains("cluster_known_nodes:3")) {
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError("the cluster did not form within " + FORMING);
                    }
                    Thread.onSpinWait();
                }
            }
        }
    }

    /** @return the three masters, in the order of their slots */
    List<RedisProcess> nodes() {
        return nodes;
    }

    /** @return the masters' {@code host:port} addresses, for {@link RedisStore.Builder#cluster} */
    Set<String> seeds() {
        Set<String> seeds = new LinkedHashSet<>();
        nodes.forEach(n -> seeds.add("127.0.0.1:" + n.port()));
        return seeds;
    }

    @Override
    public void close() throws Exception {
        for (RedisProcess node : nodes) {
            node.close();
        }
    }
}
