package io.sluice.redis;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.IntFunction;
import redis.clients.jedis.Connection;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * A Cluster's lanes per master node ({@link Coalescer}): each hash slot's lane is its node's, looked up once per slot
 * (a pooled connection borrowed and given back, so the client's own map of the slots decides) and again after a call
 * found the slot elsewhere. A stale entry costs a batch sent again slot by slot, never a wrong answer: the node
 * refuses keys it does not serve before anything is written ({@link RedisScript#across}).
 */
final class NodeLanes {

    private static final int CLUSTER_SLOTS = 16384;

    /** The node of a slot ({@code host:port}), or null where it cannot be told now. */
    private final IntFunction<String> nodeOf;
    private final AtomicReferenceArray<Coalescer.Lane> bySlot = new AtomicReferenceArray<>(CLUSTER_SLOTS);
    private final ConcurrentHashMap<String, Coalescer.Lane> byNode = new ConcurrentHashMap<>();

    NodeLanes(IntFunction<String> nodeOf) {
        this.nodeOf = nodeOf;
    }

    /** @return the lanes of {@code client}'s nodes, as its Cluster client maps the slots */
    static NodeLanes of(ReconnectingClient client) {
        return new NodeLanes(slot -> node(client, slot));
    }

    /** @return the {@code host:port} of the master of {@code slot}, or null where it cannot be told now */
    private static String node(ReconnectingClient client, int slot) {
        try {
            UnifiedJedis redis = client.get();
            Connection c = redis instanceof RedisClusterClient r ? r.getConnectionFromSlot(slot)
                    : redis instanceof JedisCluster j ? j.getConnectionFromSlot(slot) : null;
            if (c == null) {
                return null;
            }
            try (c) {
                return c.getHostAndPort().toString();
            }
        } catch (JedisException e) {
            return null;
        }
    }

    /** @return the lane of {@code slot}'s node, or null where its node cannot be told (the slot's own lane serves) */
    Coalescer.Lane lane(int slot) {
        Coalescer.Lane lane = bySlot.get(slot);
        if (lane == null) {
            String node = nodeOf.apply(slot);
            if (node == null) {
                return null;
            }
            lane = byNode.computeIfAbsent(node, n -> new Coalescer.Lane(true));
            bySlot.set(slot, lane);
        }
        return lane;
    }

    /** Looks {@code slot}'s node up again on its next request: a call found it elsewhere. */
    void forget(int slot) {
        bySlot.set(slot, null);
    }
}
