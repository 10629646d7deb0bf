package io.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.testing.Await;
import io.sluice.core.testing.RedisProcess;
import io.sluice.redis.RedisStore;
import io.sluice.http.FrontDoor;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import redis.clients.jedis.RedisClient;

/**
 * The starter on a real redis-server: two applications (two Spring contexts, each its own server) sharing one Redis
 * stay within one limit together, whether the store comes from {@code sluice.store} or from the application's Jedis
 * client bean.
 */
class RedisIT {

    private static RedisProcess redis;

    @BeforeAll
    static void startRedis() throws IOException {
        redis = RedisProcess.start();
    }

    @AfterAll
    static void stopRedis() throws IOException {
        redis.close();
    }

    @Test
    void twoApplicationsShareOneLimit() {
        List<ConfigurableApplicationContext> apps = new ArrayList<>();
        try {
            apps.add(start("sluice.store=" + redis.url(), "sluice.limit=5/1h",
                    "sluice.name=shared"));
            apps.add(start("sluice.store=" + redis.url(), "sluice.limit=5/1h",
                    "sluice.name=shared"));
            int admitted = 0;
            for (int i = 0; i < 20; i++) {
                int status = Http.get(port(apps.get(i % 2)), "/hello").statusCode();
                assertThat(status).isIn(200, 429);
                admitted += status == 200 ? 1 : 0;
            }
            assertThat(admitted).as("both nodes together").isEqualTo(5);

            // a third application, its store around its own Jedis client bean: the same counts
            apps.add(start(List.of(ClientBean.class), "sluice.limit=5/1h", "sluice.name=shared"));
            assertThat(apps.get(2).getBean(FrontDoor.class).store()).isInstanceOf(RedisStore.class);
            assertThat(Http.get(port(apps.get(2)), "/hello").statusCode()).isEqualTo(429);
        } finally {
            apps.forEach(ConfigurableApplicationContext::close);
        }
    }

    /**
     * With {@code sluice.readiness-on-store-failure=down}, the health indicator turns DOWN once Redis is gone and the
     * engine has seen it fail (the requests meanwhile answered by the rule's failure mode, allowed), and says which
     * rules answer how.
     */
    @Test
    void healthIsDownWhileRedisIsGoneWhenSoConfigured() throws Exception {
        try (RedisProcess lost = RedisProcess.start();
                ConfigurableApplicationContext app = start("sluice.store=" + lost.url(), "sluice.limit=5/1h",
                        "sluice.readiness-on-store-failure=down", "sluice.exclude=/actuator/**",
                        "management.endpoint.health.show-details=always")) {
            int port = port(app);
            assertThat(Http.get(port, "/actuator/health").statusCode()).isEqualTo(200);
            lost.kill();
            Await.until("the health DOWN", Duration.ofSeconds(60), () -> {     // after a few failed calls in a row
                assertThat(Http.get(port, "/hello").statusCode()).as("on-store-failure allow").isEqualTo(200);
                return Http.get(port, "/actuator/health").statusCode() == 503;
            });
            assertThat(Http.get(port, "/actuator/health").body()).contains("\"store\":\"failing\"",
                    "\"allow\":\"per-ip\"");
        }
    }

    /** A Jedis client bean, beside the test application (not annotated: no other test's component scan finds it). */
    static class ClientBean {

        @Bean(destroyMethod = "close")
        RedisClient redisClient() {
            return RedisClient.create(redis.url());
        }
    }

    private static ConfigurableApplicationContext start(String... properties) {
        return start(List.of(), properties);
    }

    private static ConfigurableApplicationContext start(List<Class<?>> beans, String... properties) {
        List<Class<?>> sources = new ArrayList<>(beans);
        sources.add(TestApplication.class);
        List<String> all = new ArrayList<>(List.of(properties));
        all.add("server.port=0");
        return new SpringApplicationBuilder(sources.toArray(Class<?>[]::new)).properties(all.toArray(String[]::new))
                .run();
    }

    private static int port(ConfigurableApplicationContext app) {
        return ((WebServerApplicationContext) app).getWebServer().getPort();
    }
}
