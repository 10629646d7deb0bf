package io.sluice.quarkus;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.sluice.core.testing.RedisProcess;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/**
 * The same application deciding in a real redis-server ({@code sluice.store=redis://...} from {@link RedisResource}):
 * the limit holds, and its counters are in Redis, not in memory.
 */
@QuarkusTest
@TestProfile(QuarkusRedisTest.OnRedis.class)
@QuarkusTestResource(value = RedisResource.class, restrictToAnnotatedClass = true)
class QuarkusRedisTest {

    /** A profile of its own: the application restarts on Redis, and the other tests keep the memory store. */
    public static class OnRedis implements QuarkusTestProfile {}

    RedisProcess redis;

    @Test
    void theLimitIsKeptInRedis() {
        for (int i = 0; i < 3; i++) {
            given().header("X-Client", "redis").get("/api/hello").then().statusCode(200);
        }
        given().header("X-Client", "redis").get("/api/hello").then().statusCode(429)
                .body("error.context.policy", equalTo("per-client"));
        try (RedisClient client = RedisClient.create(redis.url())) {
            assertThat(client.dbSize()).isPositive();
        }
    }
}
