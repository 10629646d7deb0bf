package io.sluice.filter;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.testing.RedisProcess;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;

/**
 * Never the reason the site is down: a real redis-server killed, paused, flushed and restarted under sustained load
 * from four client threads. Load requests carry a fresh key each, so only Redis decides their fate; a probe key
 * checks that limits are exact again once Redis is back.
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
    void redisKilledDuringLoadCostsNoFailedRequestAndLimitsAreExactOnceItIsBack() throws Exception {
        try (RedisProcess redis = RedisProcess.start(); FilterServer server = server(redis, "allow")) {
            try (HttpLoad load = new HttpLoad(server, "/", 4)) {
                load.awaitMore(200);
                redis.kill();
                load.awaitMore(300);                                   // Redis is down: the site answers anyway
                redis.restart();
                server.clock.advance(Duration.ofSeconds(1));           // the breaker's cool-down has passed
                load.awaitMore(200);
                assertThat(load.statuses.keySet()).as("statuses seen: %s", load.statuses).containsOnly(200);
            }
            int allowed = 0;
            for (int i = 0; i < 8; i++) {
                allowed += probe(server, "probe") == 200 ? 1 : 0;
            }
            assertThat(allowed).as("exact again: 5 of 8").isEqualTo(5);
        }
    }

    @Test
    void whileRedisIsDownALocalRuleLimitsToThisNodesShare() throws Exception {
        try (RedisProcess redis = RedisProcess.start(); FilterServer server = server(redis, "local")) {
            probe(server, "warm-up");
            redis.kill();
            int allowed = 0;
            for (int i = 0; i < 8; i++) {
                int status = probe(server, "probe");
                assertThat(status).isIn(200, 429);
                allowed += status == 200 ? 1 : 0;
            }
            assertThat(allowed).as("the local limit of a one-node fleet is the whole limit").isEqualTo(5);
        }
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

    @Test
    void scriptFlushesDuringLoadFailNoRequest() throws Exception {
        try (RedisProcess redis = RedisProcess.start(); FilterServer server = server(redis, "deny")) {
            try (HttpLoad load = new HttpLoad(server, "/", 4); RedisClient admin = RedisClient.create(redis.url())) {
                boolean functions = !RedisProcess.version(redis.url()).startsWith("6.");
                for (int i = 0; i < 5; i++) {
                    load.awaitMore(100);
                    admin.scriptFlush();
                    if (functions) {
                        admin.functionFlush();      // on Redis 7 the store calls a function, which SCRIPT FLUSH keeps
                    }
                }
                load.awaitMore(100);
                assertThat(load.statuses.keySet()).as("with on-store-failure=deny a single store failure would be"
                        + " a 503: %s", load.statuses).containsOnly(200);
            }
            int allowed = 0;
            for (int i = 0; i < 8; i++) {
                allowed += probe(server, "probe") == 200 ? 1 : 0;
            }
            assertThat(allowed).isEqualTo(5);
        }
    }
}
