package io.sluice.redis;

import io.sluice.core.store.StoreException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Builds the Jedis clients a store opens: standalone (TLS, database), Sentinel or Cluster, each with the store's time
 * budget as connect and read timeouts and as the wait for one of its pooled connections.
 *
 * <p>Building one opens no connection, so that building a store, and an engine on it, never waits on a Redis that does
 * not answer: a standalone client connects on its first call (its protocol is set, RESP3, which Redis 6 and later
 * speak: without it Jedis would open a connection at once to learn which the server speaks), a Sentinel or Cluster
 * client is created on the first call that needs it ({@link ReconnectingClient#get()}).
 */
final class RedisClients {

    /** Attempts of one cluster call: the first, and one after a redirection ({@code MOVED}, {@code ASK}). */
    private static final int CLUSTER_ATTEMPTS = 2;

    /** A user (null for the default user) and password (null for none). */
    record Login(String user, String password) {}

    private final Duration timeout;
    private final int millis;
    private final GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();

    /**
     * @param timeout the time budget of one call, between 1 ms and 60 s
     * @param poolSize the most pooled connections for calls (per node, in a Cluster); the pool has one more, which the
     *     fleet channel's subscription holds ({@link RedisFleetChannel})
     */
    RedisClients(Duration timeout, int poolSize) {
        this.timeout = timeout;
        this.millis = (int) timeout.toMillis();
        pool.setMaxTotal(poolSize + 1);
        pool.setMaxIdle(poolSize + 1);
        pool.setMaxWait(timeout);
        pool.setJmxEnabled(false);
    }

    /** A {@code redis://} or {@code rediss://} URL's client, which connects on use and is replaced on READONLY. */
    ReconnectingClient standalone(RedisUrl url) {
        DefaultJedisClientConfig config = DefaultJedisClientConfig.builder().connectionTimeoutMillis(millis)
                .socketTimeoutMillis(millis).user(url.user()).password(url.password()).database(url.database())
                .ssl(url.ssl()).clientName("sluice").protocol(RedisProtocol.RESP3).build();
        Supplier<UnifiedJedis> connect = () -> RedisClient.builder()
                .hostAndPort(url.host(), url.port()).clientConfig(config).poolConfig(pool).build();
        try {
            return new ReconnectingClient(connect.get(), connect, false, true, url.toString());
        } catch (JedisException e) {
            throw new StoreException("cannot open the Redis store: " + e.getMessage(), e);
        }
    }

    /**
     * @param login the master's credentials
     * @param sentinelLogin the sentinels' own credentials; null when none were given
     * @param url the {@code redis-sentinel://} URL they came from; null for {@link RedisStore.Builder#sentinel}
     */
    ReconnectingClient sentinel(String master, Set<HostAndPort> sentinels, Login login, Login sentinelLogin,
            RedisUrl url) {
        DefaultJedisClientConfig config = config(login);
        DefaultJedisClientConfig sentinelConfig = DefaultJedisClientConfig.builder().connectionTimeoutMillis(millis)
                .socketTimeoutMillis(millis).user(sentinelLogin == null ? null : sentinelLogin.user())
                .password(sentinelLogin == null ? null : sentinelLogin.password()).build();
        String hint = sentinelHint(sentinels, sentinelLogin != null, url != null);
        Supplier<UnifiedJedis> connect = () -> {
            try {
                return RedisSentinelClient.builder().masterName(master).sentinels(sentinels)
                        .clientConfig(config).sentinelClientConfig(sentinelConfig).poolConfig(pool).build();
            } catch (JedisConnectionException e) {
                throw new JedisConnectionException(e.getMessage() + hint, e);
            }
        };
        return started(connect, false, url != null ? url.toString() : "sentinel " + master + " " + sentinels);
    }

    /**
     * One attempt after a redirection at most, and never past the call's budget: Jedis's default of five attempts
     * re-sends a command that timed out (it may have run) and takes five times the budget.
     *
     * @param url the {@code redis-cluster://} URL they came from; null for {@link RedisStore.Builder#cluster}
     */
    ReconnectingClient cluster(Set<HostAndPort> seeds, Login login, RedisUrl url) {
        DefaultJedisClientConfig config = config(login);
        Supplier<UnifiedJedis> connect = () -> RedisClusterClient.builder().nodes(seeds).clientConfig(config)
                .poolConfig(pool).maxAttempts(CLUSTER_ATTEMPTS).maxTotalRetriesDuration(timeout).build();
        return started(connect, true, url != null ? url.toString() : "cluster " + seeds);
    }

    private DefaultJedisClientConfig config(Login login) {
        return DefaultJedisClientConfig.builder().connectionTimeoutMillis(millis).socketTimeoutMillis(millis)
                .user(login.user()).password(login.password()).clientName("sluice").protocol(RedisProtocol.RESP3)
                .build();
    }

    /**
     * A Sentinel or Cluster client, created (and connected) on the first call that needs it, which at start-up is one
     * of the engine's own threads (the fleet's subscription, the first read of the shared settings), never the
     * thread that builds the store. One that cannot connect is created on a later call, once the servers answer: the
     * application starts and its requests fall back (on-store-failure) meanwhile.
     */
    private static ReconnectingClient started(Supplier<UnifiedJedis> connect, boolean cluster, String description) {
        return new ReconnectingClient(null, connect, cluster, false, description);
    }

    /**
     * Jedis reports sentinels that are down, unreachable or refused to authenticate alike, as "All sentinels down":
     * the hint covers each.
     */
    private static String sentinelHint(Set<HostAndPort> sentinels, boolean credentialsGiven, boolean fromUrl) {
        return " Are the sentinels running and reachable at " + listed(sentinels) + "? If they are"
                + (credentialsGiven ? ", do sentinelCredentials(...) match their requirepass in sentinel.conf?"
                : " and require a password of their own (requirepass in sentinel.conf), give it with"
                + " sentinelCredentials(user, password)" + (fromUrl ? " on RedisStore.builder(), in a Store or client"
                + " the application produces; a URL has no place for it." : "."));
    }

    /** @return the addresses as {@code host:port,[ipv6]:port}, as a URL writes them */
    private static String listed(Set<HostAndPort> addresses) {
        List<String> out = new ArrayList<>();
        for (HostAndPort a : addresses) {
            out.add((a.getHost().indexOf(':') >= 0 ? "[" + a.getHost() + "]" : a.getHost()) + ":" + a.getPort());
        }
        return String.join(",", out);
    }
}
