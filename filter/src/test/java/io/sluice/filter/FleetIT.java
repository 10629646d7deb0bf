package io.sluice.filter;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.testing.RedisProcess;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Two application nodes (two Jettys, two filters) sharing one real Redis limit together. */
class FleetIT {

    @Test
    void twoNodesSharingOneRedisLimitAsOne() throws Exception {
        try (RedisProcess redis = RedisProcess.start();
                // the nodes' manual clocks drive Redis too, so Retry-After is exact however slow the machine is; a
                // budget no load on CI reaches (the 50 ms default is not what this tests)
                FilterServer a = FilterServer.start(Map.of("limit", "10/1h", "store", shared(redis)));
                FilterServer b = FilterServer.start(Map.of("limit", "10/1h", "store", shared(redis)))) {
            int allowed = 0;
            for (int i = 0; i < 20; i++) {
                FilterServer node = i % 2 == 0 ? a : b;
                if (node.client().get("/").statusCode() == 200) {
                    allowed++;
                }
            }
            assertThat(allowed).as("ten across the fleet, not ten per node").isEqualTo(10);
            b.client().get("/").then().statusCode(429).header("Retry-After", "360");
        }
    }

    @Test
    void whenRedisIsDownTheSiteStaysUpAndComesBackToExactLimits() throws Exception {
        try (RedisProcess redis = RedisProcess.start();
                FilterServer node = FilterServer.start(Map.of("limit", "3/1h", "store", redis.url()))) {
            node.client().get("/").then().statusCode(200).header("RateLimit", "\"per-ip\";r=2;t=1200");
            redis.kill();
            for (int i = 0; i < 10; i++) {
                node.client().get("/").then().statusCode(200);   // on-store-failure allow (the default): no 5xx, no 429
            }
            redis.restart();
            node.clock.advance(java.time.Duration.ofSeconds(1));  // past the breaker's cool-down
            int allowed = 0;
            for (int i = 0; i < 6; i++) {
                if (node.client().get("/").statusCode() == 200) {
                    allowed++;
                }
            }
            assertThat(allowed).as("a fresh Redis: exactly the limit again").isEqualTo(3);
        }
    }

    private static String shared(RedisProcess redis) {
        return redis.url() + "?time=application&timeout=2s";
    }
}
