package io.sluice.redis;

import java.time.Duration;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

/** Opens the client of an {@link AdmissionQueue} built with {@link AdmissionQueue.Builder#url}. */
final class QueueClients {

    private QueueClients() {}

    /**
     * @param url a standalone {@code redis://} or {@code rediss://} URL
     * @param timeout the connect and read timeout, and the longest wait for a pooled connection; a blocking read
     *     ({@code XREADGROUP BLOCK}) waits its block time and this, so that a paused Redis does not hold a worker
     * @param poolSize the most connections
     * @throws IllegalArgumentException when the URL is malformed or names Sentinel or Cluster
     */
    static UnifiedJedis open(String url, Duration timeout, int poolSize) {
        RedisUrl u = RedisUrl.parse("url", url);
        if (!u.standalone()) {
            throw new IllegalArgumentException("url: a standalone redis:// or rediss:// URL; for Sentinel or"
                    + " Cluster, give a client(...)");
        }
        int millis = (int) Math.min(Integer.MAX_VALUE - QueueWorker.LONGEST_BLOCK_MILLIS, timeout.toMillis());
        DefaultJedisClientConfig config = DefaultJedisClientConfig.builder().connectionTimeoutMillis(millis)
                .socketTimeoutMillis(millis).blockingSocketTimeoutMillis(millis + QueueWorker.LONGEST_BLOCK_MILLIS)
                .user(u.user()).password(u.password()).database(u.database())
                .ssl(u.ssl()).clientName("sluice-queue").build();
        GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
        pool.setMaxTotal(poolSize);
        pool.setMaxIdle(poolSize);
        pool.setMaxWait(timeout);
        pool.setJmxEnabled(false);
        return RedisClient.builder().hostAndPort(u.host(), u.port()).clientConfig(config).poolConfig(pool).build();
    }
}
