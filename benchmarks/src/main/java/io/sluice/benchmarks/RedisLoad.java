package io.sluice.benchmarks;

import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.redis.jedis.Bucket4jJedis;
import io.sluice.core.Algorithm;
import io.sluice.core.Policy;
import io.sluice.core.store.Check;
import io.sluice.core.store.RedisStore;
import io.sluice.core.testing.RedisProcess;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;

/**
 * Decisions per second and latency against a local redis-server, all contenders in the same run: Sluice's
 * {@link RedisStore} (one rule, four rules), Bucket4j with its Jedis backend, and the floor — a bare {@code EVALSHA}
 * of a one-key GCRA script, and {@code PING}. Each at 1, 16 and 64 threads, on one hot key and on 100,000 keys. Then
 * Redis memory per key ({@code MEMORY USAGE}) for each algorithm. Starts its own redis-server (as the tests do)
 * unless {@code SLUICE_REDIS_URL} is set.
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar io.sluice.benchmarks.RedisLoad [seconds]}
 */
public final class RedisLoad {

    /** A one-key GCRA in Lua, as small as it gets: the floor a Redis rate limiter cannot beat. */
    private static final String BARE_GCRA = """
            local t = redis.call('TIME')
            local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
            local tat = tonumber(redis.call('GET', KEYS[1]) or now)
            if tat < now then tat = now end
            local new = tat + 1
            if new - 1000000000 > now then return 0 end
            redis.call('SET', KEYS[1], new, 'PX', 1000)
            return 1
            """;

    private interface Call {
        void run(String key) throws Exception;
    }

    private record Result(String name, String keys, int threads, double perSecond, double p50Micros, double p99Micros) {}

    private RedisLoad() {}

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        String url = RedisProcess.external();
        RedisProcess redis = null;
        if (url == null) {
            redis = RedisProcess.start();
            url = redis.url();
        }
        GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
        pool.setMaxTotal(64);
        pool.setMaxIdle(64);
        RedisClient jedis = RedisClient.builder().fromURI(url).poolConfig(pool).build();
        RedisStore store = RedisStore.builder().url(url).poolSize(64).timeout(Duration.ofSeconds(2)).build();
        String sha = jedis.scriptLoad(BARE_GCRA);
        ProxyManager<byte[]> bucket4j = Bucket4jJedis.casBasedBuilder(jedis)
                .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(1)))
                .build();
        BucketConfiguration config = BucketConfiguration.builder()
                .addLimit(l -> l.capacity(1_000_000_000L).refillGreedy(1_000_000_000L, Duration.ofSeconds(1))).build();
        Policy policy = Policy.parse("1000000000/1s");
        List<String> names = List.of("ping", "bare-evalsha", "sluice-gcra-1-rule", "sluice-gcra-4-rules", "bucket4j-jedis");
        List<Call> calls = List.of(
                key -> jedis.ping(),
                key -> jedis.evalsha(sha, List.of("bare:" + key), List.of()),
                key -> store.evaluate(List.of(Check.of("one", key, policy, 1)), 0),
                key -> store.evaluate(List.of(Check.of("r1", key, policy, 1), Check.of("r2", key, policy, 1),
                        Check.of("r3", key, policy, 1), Check.of("r4", key, policy, 1)), 0),
                key -> bucket4j.builder().build(("b4j:" + key).getBytes(StandardCharsets.UTF_8), () -> config)
                        .tryConsume(1));
        String[] keys = Keys.distinct(Keys.COUNT);
        List<Result> results = new ArrayList<>();
        for (String keySpace : List.of("hot key", "100,000 keys")) {
            for (int threads : new int[] {1, 16, 64}) {
                for (int c = 0; c < calls.size(); c++) {
                    results.add(run(names.get(c), keySpace, threads, seconds, calls.get(c),
                            keySpace.equals("hot key") ? null : keys));
                    Result r = results.get(results.size() - 1);
                    System.out.printf(Locale.ROOT, "%-22s %-13s %3d threads %10.0f /s  p50 %7.1f µs  p99 %7.1f µs%n",
                            r.name, r.keys, r.threads, r.perSecond, r.p50Micros, r.p99Micros);
                }
            }
        }
        System.out.println();
        System.out.println("Redis MEMORY USAGE per key (SAMPLES 0), one key per algorithm:");
        long now = System.currentTimeMillis() * 1000;
        for (Algorithm a : Algorithm.values()) {
            Policy p = a == Algorithm.CONCURRENCY ? Policy.concurrent(10)
                    : a == Algorithm.SLIDING_LOG ? Policy.parse("10/1m min-interval 0s")
                    : Policy.of(a, 10, Duration.ofMinutes(1));
            store.evaluate(List.of(new Check("mem-" + a.id(), "client-12345", p, 1, false,
                    a == Algorithm.CONCURRENCY ? "lease-1" : null)), now);
            Object bytes = jedis.sendCommand(Protocol.Command.MEMORY, "USAGE",
                    store.key("mem-" + a.id(), "client-12345"), "SAMPLES", "0");
            System.out.printf(Locale.ROOT, "%-16s %5s bytes%n", a.id(), bytes);
        }
        bucket4j.builder().build("b4j:client-12345".getBytes(StandardCharsets.UTF_8), () -> config).tryConsume(1);
        Object b4j = jedis.sendCommand(Protocol.Command.MEMORY, "USAGE",
                "b4j:client-12345", "SAMPLES", "0");
        System.out.printf(Locale.ROOT, "%-16s %5s bytes%n", "bucket4j-jedis", b4j);
        store.close();
        jedis.close();
        if (redis != null) {
            redis.close();
        }
        System.exit(0);
    }

    private static Result run(String name, String keySpace, int threads, int seconds, Call call, String[] keys)
            throws Exception {
        AtomicBoolean measuring = new AtomicBoolean(false);
        AtomicBoolean running = new AtomicBoolean(true);
        long[][] samples = new long[threads][];
        long[] counts = new long[threads];
        CountDownLatch done = new CountDownLatch(threads);
        for (int t = 0; t < threads; t++) {
            int id = t;
            Thread thread = new Thread(() -> {
                long[] lat = new long[1 << 20];
                int n = 0;
                long count = 0;
                try {
                    while (running.get()) {
                        String key = keys == null ? "hot" : keys[ThreadLocalRandom.current().nextInt(keys.length)];
                        long start = System.nanoTime();
                        call.run(key);
                        long took = System.nanoTime() - start;
                        if (measuring.get()) {
                            count++;
                            if (n < lat.length) {
                                lat[n++] = took;
                            }
                        }
                    }
                } catch (Exception e) {
                    e.printStackTrace();
                } finally {
                    samples[id] = Arrays.copyOf(lat, n);
                    counts[id] = count;
                    done.countDown();
                }
            });
            thread.setDaemon(true);
            thread.start();
        }
        Thread.sleep(1_000);                                     // warm-up
        long start = System.nanoTime();
        measuring.set(true);
        Thread.sleep(seconds * 1_000L);
        measuring.set(false);
        long elapsed = System.nanoTime() - start;
        running.set(false);
        done.await();
        long total = Arrays.stream(counts).sum();
        long[] all = Arrays.stream(samples).flatMapToLong(Arrays::stream).sorted().toArray();
        double p50 = all.length == 0 ? 0 : all[all.length / 2] / 1000.0;
        double p99 = all.length == 0 ? 0 : all[(int) (all.length * 0.99)] / 1000.0;
        return new Result(name, keySpace, threads, total * 1e9 / elapsed, p50, p99);
    }
}
