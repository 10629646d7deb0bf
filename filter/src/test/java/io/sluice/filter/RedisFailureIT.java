package io.sluice.filter;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.testing.RedisProcess;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;

/**
 * Never the reason the site is slow: a real redis-server paused with {@code CLIENT PAUSE} for 10 s costs each request
 * no more than about its time budget. Redis killed under load, script flushes under load and the local share while
 * Redis is down are cells of {@link FaultMatrixIT}.
 */
class RedisFailureIT {

    private static FilterServer server(RedisProcess redis, String onFailure) throws Exception {
        return FilterServer.start(Map.of("limit", "5/1h", "key", "header:X-Client", "store", redis.url(),
                "on-store-failure", onFailure));
    }

    private static int probe(FilterServer server, String client) {
        return server.client().header("X-Client", client).get("/").statusCode();
    }

    @Test
    void aPausedRedisCostsEachRequestNoMoreThanTheTimeBudget() throws Exception {
        try (RedisProcess redis = RedisProcess.start(); FilterServer server = server(redis, "allow");
                RedisClient admin = RedisClient.create(redis.url())) {
            probe(server, "before");
            admin.sendCommand(Protocol.Command.CLIENT, "PAUSE", "10000", "ALL");
            long slowestMillis = 0;
            for (int i = 0; i < 10; i++) {
                long start = System.nanoTime();
                assertThat(probe(server, "during-" + i)).isEqualTo(200);
                slowestMillis = Math.max(slowestMillis, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            }
            // the budget is 50 ms per Redis call (one call, plus one retry on a broken connection), and the breaker
            // opens after three failures; 10 s is how long Redis stays paused
            assertThat(slowestMillis).as("slowest request while Redis is paused for 10 s").isLessThan(2_000);
        }
    }
}
