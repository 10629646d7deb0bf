package io.sluice.spring;

import io.sluice.core.store.Store;
import io.sluice.redis.RedisStore;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import redis.clients.jedis.UnifiedJedis;

/**
 * The {@link RedisStore} around the application's Jedis client bean ({@code RedisClient}, {@code RedisClusterClient},
 * {@code RedisSentinelClient}), when it has one and no {@link Store} bean of its own: the only class of the starter
 * that names a type of Jedis or of {@code sluice-redis}, both optional, loaded only when both are on the class path.
 * The client stays the application's: closing the store leaves it open.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = {"redis.clients.jedis.UnifiedJedis", "io.sluice.redis.RedisStore"})
class RedisClientConfiguration {

    /** @return a store deciding in the application's client, closed with the application context */
    @Bean
    @ConditionalOnBean(UnifiedJedis.class)
    @ConditionalOnMissingBean(Store.class)
    Store sluiceRedisStore(UnifiedJedis client) {
        return RedisStore.builder().client(client).build();
    }
}
