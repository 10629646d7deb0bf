package io.sluice.cdi.internal;

import io.sluice.core.store.Store;
import io.sluice.redis.RedisStore;
import jakarta.enterprise.inject.Instance;
import redis.clients.jedis.UnifiedJedis;

/**
 * The {@link RedisStore} around the application's produced Jedis client ({@code RedisClient},
 * {@code RedisClusterClient}, {@code RedisSentinelClient}). The only class of this module that names a type of Jedis or
 * of {@code sluice-redis}, both optional: loaded by {@link #find} only after checking that both can be loaded.
 */
final class RedisClientLookup {

    private static final String JEDIS_CLASS = "redis.clients.jedis.UnifiedJedis";
    private static final String REDIS_STORE_CLASS = "io.sluice.redis.RedisStore";

    private RedisClientLookup() {}

    /**
     * @param beans the beans the application's container sees
     * @return a store around the application's one {@code @Default} Jedis client; null when Jedis or
     *     {@code sluice-redis} is absent or the application produces no client
     */
    static Store find(Instance<Object> beans) {
        return present() ? around(beans) : null;
    }

    private static Store around(Instance<Object> beans) {
        UnifiedJedis client = SluiceBeans.one(
                SluiceBeans.visible(beans.select(UnifiedJedis.class), UnifiedJedis.class), UnifiedJedis.class);
        return client == null ? null : RedisStore.builder().client(client).build();
    }

    private static boolean present() {
        try {
            Class.forName(JEDIS_CLASS, false, RedisClientLookup.class.getClassLoader());
            Class.forName(REDIS_STORE_CLASS, false, RedisClientLookup.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError absent) {
            return false;
        }
    }
}
