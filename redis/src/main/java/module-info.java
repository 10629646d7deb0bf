/** The Redis store: {@link io.sluice.redis.RedisStore}, Jedis and the Lua script; a {@code StoreProvider} for URLs. */
module io.sluice.redis {
    requires transitive io.sluice.core;
    requires transitive redis.clients.jedis;
    requires org.apache.commons.pool2;
    requires com.github.benmanes.caffeine;

    exports io.sluice.redis;

    provides io.sluice.core.store.StoreProvider with io.sluice.redis.RedisStoreProvider;
}
