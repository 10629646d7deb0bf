package io.sluice.benchmarks;

import io.sluice.core.testing.RedisProcess;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import redis.clients.jedis.Jedis;

/**
 * A Redis Cluster of masters only, on loopback, that a benchmark starts and stops itself: each node a
 * {@link RedisProcess#startClusterNode cluster node} (the {@code redis-server} on the {@code PATH}, else the embedded
 * one), the 16,384 hash slots split evenly in ranges, the nodes joined with {@code CLUSTER MEET}.
 */
final class LocalCluster implements AutoCloseable {

    private static final int SLOTS = 16_384;
    private static final Duration FORMED_WITHIN = Duration.ofSeconds(30);

    private final List<RedisProcess> nodes;

    private LocalCluster(List<RedisProcess> nodes) {
        this.nodes = nodes;
    }

    /** Starts {@code masters} nodes and returns once every one of them reports the cluster formed and whole. */
    static LocalCluster start(int masters) throws IOException, InterruptedException {
        List<RedisProcess> nodes = new ArrayList<>();
        LocalCluster cluster = new LocalCluster(nodes);
        try {
            for (int i = 0; i < masters; i++) {
                nodes.add(RedisProcess.startClusterNode("--cluster-node-timeout", "5000"));
            }
            for (int i = 0; i < masters; i++) {
                try (Jedis node = new Jedis("127.0.0.1", nodes.get(i).port())) {
                    node.clusterAddSlots(IntStream.range(SLOTS * i / masters, SLOTS * (i + 1) / masters).toArray());
                    for (RedisProcess other : nodes) {
                        node.clusterMeet("127.0.0.1", other.port());
                    }
                }
            }
            cluster.awaitFormed();
            return cluster;
        } catch (IOException | InterruptedException | RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    private void awaitFormed() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + FORMED_WITHIN.toNanos();
        for (RedisProcess node : nodes) {
            try (Jedis j = new Jedis("127.0.0.1", node.port())) {
                while (!formed(j.clusterInfo())) {
                    if (System.nanoTime() > deadline) {
                        throw new IOException("no cluster of " + nodes.size() + " masters within " + FORMED_WITHIN
                                + ": " + j.clusterInfo());
                    }
                    Thread.sleep(20);
                }
            }
        }
    }

    private boolean formed(String info) {
        return info.contains("cluster_state:ok") && info.contains("cluster_known_nodes:" + nodes.size())
                && info.contains("cluster_slots_assigned:" + SLOTS);
    }

    /** @return each master's {@code host:port}, for {@code RedisStore.builder().cluster(...)} */
    Set<String> seeds() {
        Set<String> seeds = new LinkedHashSet<>();
        nodes.forEach(n -> seeds.add("127.0.0.1:" + n.port()));
        return seeds;
    }

    /** @return the masters' ports, in the order of their slot ranges */
    List<Integer> ports() {
        return nodes.stream().map(RedisProcess::port).toList();
    }

    @Override
    public void close() throws IOException {
        for (RedisProcess node : nodes) {
            node.close();
        }
    }
}
