/**
 * The Redis store: {@link io.sluice.redis.RedisStore}, Jedis and the Lua script; a {@code StoreProvider} for URLs.
 *
 * <p>"requires-transitive-automatic": Jedis is an automatic module, and its types are in this API
 * ({@code RedisStore.Builder.client(UnifiedJedis)}), so a module using it reads Jedis too. Jedis's name is its own,
 * declared as {@code Automatic-Module-Name: redis.clients.jedis}, not one taken from its file name.
 */
@SuppressWarnings("requires-transitive-automatic")
module io.sluice.redis {
    requires transitive io.sluice.core;
    requires transitive redis.clients.jedis;
    requires org.apache.commons.pool2;
    requires com.github.benmanes.caffeine;

    exports io.sluice.redis;

    provides io.sluice.core.store.StoreProvider with io.sluice.redis.RedisStoreProvider;
}
