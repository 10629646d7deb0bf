package io.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.testing.RedisProcess;
import io.sluice.http.FrontDoor;
import io.sluice.redis.RedisStore;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.config.DestructionAwareBeanPostProcessor;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import redis.clients.jedis.RedisClient;

/**
 * The front door closes before the store it decides in, and the store before the application's Jedis client (which
 * the store does not close): the front door's engine leaves the store's fleet while the store and its client still
 * answer. On the context's close, and when the client bean alone is destroyed (as a refresh scope or a bean factory's
 * {@code destroySingleton} does): Spring then destroys first the beans recorded as depending on it, and a lookup
 * through an {@code ObjectProvider} records none.
 */
class ShutdownOrderIT {

    /** The beans destroyed, in order, as Spring destroys them. */
    static final List<String> DESTROYED = new CopyOnWriteArrayList<>();

    @Test
    void onTheContextsClose() throws IOException {
        try (RedisProcess redis = RedisProcess.start()) {
            ConfigurableApplicationContext app = start(redis);
            app.close();

            assertThat(DESTROYED).as("the client still open when the application closes it")
                    .containsSubsequence("sluiceFrontDoor", "sluiceRedisStore", "redisClient PONG");
        }
    }

    @Test
    void whenTheClientBeanAloneIsDestroyed() throws IOException {
        try (RedisProcess redis = RedisProcess.start(); ConfigurableApplicationContext app = start(redis)) {
            ((DefaultListableBeanFactory) app.getBeanFactory()).destroySingleton("redisClient");

            assertThat(DESTROYED).as("what depends on the client first, the client still open")
                    .containsSubsequence("sluiceFrontDoor", "sluiceRedisStore", "redisClient PONG");
        }
    }

    private static ConfigurableApplicationContext start(RedisProcess redis) {
        DESTROYED.clear();
        ConfigurableApplicationContext app = new SpringApplicationBuilder(Beans.class, TestApplication.class)
                .properties("server.port=0", "sluice.limit=5/1h", "test.redis=" + redis.url()).run();
        assertThat(app.getBean(FrontDoor.class).store()).isInstanceOf(RedisStore.class);
        return app;
    }

    /**
     * The application's Jedis client, and a recorder of the beans destroyed (not annotated: no other test's component
     * scan finds it).
     */
    static class Beans {

        @Bean(destroyMethod = "close")
        RedisClient redisClient(Environment environment) {
            return RedisClient.create(environment.getRequiredProperty("test.redis"));
        }

        /** @return records each bean as Spring is about to destroy it; the client with its answer to a PING then */
        @Bean
        static DestructionAwareBeanPostProcessor destructionRecorder() {
            return (bean, name) -> DESTROYED.add(bean instanceof RedisClient client ? name + " " + ping(client) : name);
        }

        private static String ping(RedisClient client) {
            try {
                return client.ping();
            } catch (RuntimeException e) {
                return "failed: " + e;
            }
        }
    }
}
