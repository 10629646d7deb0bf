package io.sluice.benchmarks;

import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Policy;
import io.sluice.core.store.Check;
import io.sluice.redis.RedisStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;

/** The end of {@link RedisLoad}: Redis {@code MEMORY USAGE} per key for each algorithm, and for Bucket4j. */
final class RedisMemory {

    private RedisMemory() {}

    static void report(RedisClient jedis, RedisStore store, ProxyManager<byte[]> bucket4j, BucketConfiguration config) {
        System.out.println();
        System.out.println("Redis MEMORY USAGE per key (SAMPLES 0) after one request, one key per algorithm:");
        long now = System.currentTimeMillis() * 1000;
        String apiKey = store.key("api", "client-12345");    // Bucket4j is measured under this same key name below
        for (Algorithm a : Algorithm.values()) {
            if (a.local()) {
                continue;       // decided on each node, never stored
            }
            Policy p = a == Algorithm.CONCURRENCY ? Policy.concurrent(10)
                    : a == Algorithm.SLIDING_LOG ? Policy.parse("10/1m min-interval 0s")
                    : Policy.of(a, 10, Duration.ofMinutes(1));
            store.evaluate(List.of(new Check("mem-" + a.id(), "client-12345", p, 1, false,
                    a == Algorithm.CONCURRENCY ? "lease-1" : null)), now);
            Object bytes = usage(jedis, store.key("mem-" + a.id(), "client-12345"));
            store.reset("api", "client-12345");
            store.evaluate(List.of(new Check("api", "client-12345", p, 1, false,
                    a == Algorithm.CONCURRENCY ? "lease-1" : null)), now);
            System.out.printf(Locale.ROOT, "%-16s %5s bytes (key %s)   %5s bytes (key %s)%n", a.id(), bytes,
                    store.key("mem-" + a.id(), "client-12345"), usage(jedis, apiKey), apiKey);
        }
        bucket4j.builder().build("b4j:client-12345".getBytes(StandardCharsets.UTF_8), () -> config).tryConsume(1);
        Object b4j = usage(jedis, "b4j:client-12345");
        BucketConfiguration small = BucketConfiguration.builder()
                .addLimit(l -> l.capacity(10).refillGreedy(10, Duration.ofMinutes(1))).build();
        jedis.del(apiKey);
        bucket4j.builder().build(apiKey.getBytes(StandardCharsets.UTF_8), () -> small).tryConsume(1);
        System.out.printf(Locale.ROOT, "%-16s %5s bytes (key b4j:client-12345)   %5s bytes (key %s)%n",
                "bucket4j-jedis", b4j, usage(jedis, apiKey), apiKey);
    }

    private static Object usage(RedisClient jedis, String key) {
        return jedis.sendCommand(Protocol.Command.MEMORY, "USAGE", key, "SAMPLES", "0");
    }
}
