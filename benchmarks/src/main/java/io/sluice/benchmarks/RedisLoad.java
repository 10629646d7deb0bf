package io.sluice.benchmarks;

import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.redis.jedis.Bucket4jJedis;
import io.sluice.core.policy.Policy;
import io.sluice.core.store.Check;
import io.sluice.redis.RedisStore;
import io.sluice.core.testing.RedisProcess;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;

/**
 * Decisions per second and latency against a local redis-server, all contenders in the same run: Sluice's
 * {@link RedisStore} (one rule, four rules), Bucket4j with its Jedis backend, and the floors — a bare {@code EVALSHA}
 * of a one-key GCRA script, the same script over four keys, and {@code PING}. Each at 1, 16 and 64 threads, on one
 * hot key and on 100,000 keys. Then Redis memory per key ({@code MEMORY USAGE}) for each algorithm. Starts its own
 * redis-server (as the tests do) unless {@code SLUICE_REDIS_URL} is set.
 *
 * <p>Columns per decision: {@code srv µs} the time {@code INFO commandstats} counts, {@code srvCPU µs} Redis's CPU
 * time ({@code INFO cpu}, user and system, over the window), {@code cliCPU µs} this JVM's (its process CPU time over
 * the window), {@code cliSys µs} the kernel's part of it, {@code cs} its threads' context switches and {@code ics}
 * those of them not asked for ({@link ProcessTimes}). {@code handoff} is no contender but the floor of a thread that waits for its answer
 * ({@link Handoff}). Each row starts with a round of every contender that is not kept (the JIT compiles then, not
 * while measuring; {@code -Dsluice.bench.cold=true} skips it). {@code -Dsluice.bench.rawKeys=true} builds Sluice's
 * store with raw keys, for the cost of the keyed hash of each client key. With {@code -Dsluice.bench.each=true}, each round's
 * figures follow the medians.
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar io.sluice.benchmarks.RedisLoad [seconds [rounds [row
 * [contender,...]]]]}
 */
public final class RedisLoad {

    /**
     * A one-key GCRA in Lua, as small as it gets: the floor a Redis rate limiter cannot beat (also {@link ClusterLoad}'s
     * and {@link LeasedLoad}'s).
     */
    static final String BARE_GCRA = """
            local t = redis.call('TIME')
            local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
            local tat = tonumber(redis.call('GET', KEYS[1]) or now)
            if tat < now then tat = now end
            local new = tat + 1
            if new - 1000000000 > now then return 0 end
            redis.call('SET', KEYS[1], new, 'PX', 1000)
            return 1
            """;

    /**
     * The same for every key it is given (read with one {@code MGET}, each written with its own TTL): the floor for a
     * request of several rules while every rule's state is a key of its own with its own TTL, as Sluice keeps it.
     */
    static final String BARE_GCRA_KEYS = """
            local t = redis.call('TIME')
            local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
            local v = redis.call('MGET', unpack(KEYS))
            local new = {}
            for i = 1, #KEYS do
              local tat = tonumber(v[i] or now)
              if tat < now then tat = now end
              new[i] = tat + 1
              if new[i] - 1000000000 > now then return 0 end
            end
            for i = 1, #KEYS do redis.call('SET', KEYS[i], new[i], 'PX', 1000) end
            return 1
            """;

    /**
     * {@link #BARE_GCRA} for each key it is given, one after the other, as a batch of one-key calls ({@link
     * BareBatcher}): the same {@code GET} and {@code SET ... PX} per key, {@code TIME} once; a 0 or 1 per key.
     */
    private static final String BARE_GCRA_BATCH = """
            local t = redis.call('TIME')
            local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
            local out = {}
            for i = 1, #KEYS do
              local tat = tonumber(redis.call('GET', KEYS[i]) or now)
              if tat < now then tat = now end
              local new = tat + 1
              if new - 1000000000 > now then out[i] = 0 else
                redis.call('SET', KEYS[i], new, 'PX', 1000)
                out[i] = 1
              end
            end
            return out
            """;

    /**
     * The same decisions with each distinct key read once (one {@code MGET}) and written once, at the end: the floor
     * of a batch that reads and writes per key instead of per request.
     */
    static final String BARE_GCRA_BATCH_ONCE = """
            local t = redis.call('TIME')
            local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
            local v = redis.call('MGET', unpack(KEYS))
            local cur, dirty, out = {}, {}, {}
            for i = 1, #KEYS do
              local k = KEYS[i]
              local tat = cur[k] or tonumber(v[i] or now)
              if tat < now then tat = now end
              cur[k] = tat
              if tat + 1 - 1000000000 > now then out[i] = 0 else
                cur[k] = tat + 1
                dirty[k] = true
                out[i] = 1
              end
            end
            for k in pairs(dirty) do redis.call('SET', k, cur[k], 'PX', 1000) end
            return out
            """;

    /** One decision of a contender, on {@code key}. */
    interface Call {
        void run(String key) throws Exception;
    }

    private record Result(String name, String keys, int threads, double perSecond, double p50Micros, double p99Micros,
            double serverMicros, double serverCpuMicros, double clientCpuMicros, double clientSysMicros,
            double switches, double involuntary) {}

    private RedisLoad() {}

    /** The contenders of one run, over one Redis. */
    private record Setup(RedisClient jedis, RedisStore store, RedisStore uncoalesced, ProxyManager<byte[]> bucket4j,
            BucketConfiguration config, List<String> names, List<Call> calls) {
        /** @return this setup with only the contenders named in {@code csv} (all when it is empty) */
        Setup only(String csv) {
            if (csv.isEmpty()) {
                return this;
            }
            List<String> wanted = List.of(csv.split(","));
            List<String> n = new ArrayList<>();
            List<Call> c = new ArrayList<>();
            for (int i = 0; i < names.size(); i++) {
                if (wanted.contains(names.get(i))) {
                    n.add(names.get(i));
                    c.add(calls.get(i));
                }
            }
            return new Setup(jedis, store, uncoalesced, bucket4j, config, n, c);
        }

        void close() {
            store.close();
            uncoalesced.close();
            jedis.close();
        }
    }

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 2;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        String only = args.length > 2 ? args[2] : "";          // e.g. "16" or "hot key/16": only those rows
        String contenders = args.length > 3 ? args[3] : "";    // e.g. "bare-evalsha,sluice-gcra-1-rule": only those
        String url = RedisProcess.external();
        RedisProcess redis = null;
        if (url == null) {
            redis = RedisProcess.start();
            url = redis.url();
        }
        Setup setup = setup(url).only(contenders);
        System.out.println("Redis " + setup.jedis().info("server").lines().filter(l -> l.startsWith("redis_version"))
                .findFirst().orElse("?") + ", " + Runtime.getRuntime().availableProcessors() + " cores, "
                + seconds + " s per row, " + rounds + " interleaved rounds, medians");
        System.out.printf(Locale.ROOT, "%-26s %-13s %7s %11s %10s %10s %9s %9s %9s %9s %6s %6s%n", "contender", "keys",
                "threads", "decisions/s", "p50 µs", "p99 µs", "srv µs", "srvCPU µs", "cliCPU µs", "cliSys µs", "cs", "ics");
        String[] keys = Keys.distinct(Keys.COUNT);
        for (String keySpace : List.of("hot key", "100,000 keys")) {
            for (int threads : new int[] {1, 16, 64}) {
                String row = keySpace + "/" + threads;
                if (only.isEmpty() || row.equals(only) || Integer.toString(threads).equals(only)
                        || keySpace.equals(only)) {
                    row(setup, keySpace, threads, seconds, rounds, keySpace.equals("hot key") ? null : keys);
                }
            }
        }
        RedisMemory.report(setup.jedis(), setup.store(), setup.bucket4j(), setup.config());
        setup.close();
        if (redis != null) {
            redis.close();
        }
        System.exit(0);
    }

    private static Setup setup(String url) {
        GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
        pool.setMaxTotal(64);
        pool.setMaxIdle(64);
        RedisClient jedis = RedisClient.builder().fromURI(url).poolConfig(pool).build();
        RedisStore store = RedisStore.builder().url(url).poolSize(64).timeout(Duration.ofSeconds(2))
                .rawKeys(Boolean.getBoolean("sluice.bench.rawKeys")).build();
        RedisStore uncoalesced = RedisStore.builder().url(url).poolSize(64).timeout(Duration.ofSeconds(2))
                .coalesce(false).build();
        String sha = jedis.scriptLoad(BARE_GCRA);
        String shaKeys = jedis.scriptLoad(BARE_GCRA_KEYS);
        BareBatcher batched = bareBatcher(jedis, sha, jedis.scriptLoad(BARE_GCRA_BATCH));
        BareBatcher batchedOnce = bareBatcher(jedis, sha, jedis.scriptLoad(BARE_GCRA_BATCH_ONCE));
        ProxyManager<byte[]> bucket4j = Bucket4jJedis.casBasedBuilder(jedis)
                .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(1)))
                .build();
        BucketConfiguration config = BucketConfiguration.builder()
                .addLimit(l -> l.capacity(1_000_000_000L).refillGreedy(1_000_000_000L, Duration.ofSeconds(1))).build();
        Policy policy = Policy.parse("1000000000/1s");
        List<String> names = List.of("ping", "bare-evalsha", "bare-evalsha-4-keys", "sluice-gcra-1-rule",
                "sluice-gcra-4-rules", "sluice-1-rule-uncoalesced", "sluice-4-rules-uncoalesced", "bucket4j-jedis", "bare-batched",
                "bare-batched-once", "handoff");
        Handoff handoff = new Handoff();
        List<Call> calls = List.of(
                key -> jedis.ping(),
                key -> jedis.evalsha(sha, List.of("bare:" + key), List.of()),
                key -> jedis.evalsha(shaKeys, List.of("bare1:" + key, "bare2:" + key, "bare3:" + key, "bare4:" + key),
                        List.of()),
                key -> store.evaluate(List.of(Check.of("one", key, policy, 1)), 0),
                key -> store.evaluate(fourRules("r", key, policy), 0),
                key -> uncoalesced.evaluate(List.of(Check.of("u", key, policy, 1)), 0),
                key -> uncoalesced.evaluate(fourRules("u", key, policy), 0),
                key -> bucket4j.builder().build(("b4j:" + key).getBytes(StandardCharsets.UTF_8), () -> config)
                        .tryConsume(1),
                key -> batched.decide("bareb:" + key),
                key -> batchedOnce.decide("bareo:" + key),
                key -> handoff.call());
        return new Setup(jedis, store, uncoalesced, bucket4j, config, names, calls);
    }

    /** The bare script batched as Sluice's coalescer batches ({@code RedisStore}'s two calls in flight per node). */
    private static BareBatcher bareBatcher(RedisClient jedis, String sha, String shaBatch) {
        return new BareBatcher(new BareBatcher.Calls() {
            @Override
            public long one(String key) {
                return (Long) jedis.evalsha(sha, List.of(key), List.of());
            }

            @Override
            public List<?> many(List<String> keys) {
                return (List<?>) jedis.evalsha(shaBatch, keys, List.of());
            }
        }, Integer.getInteger("sluice.bench.inFlight", 2));
    }

    private static List<Check> fourRules(String prefix, String key, Policy policy) {
        return List.of(Check.of(prefix + "1", key, policy, 1), Check.of(prefix + "2", key, policy, 1),
                Check.of(prefix + "3", key, policy, 1), Check.of(prefix + "4", key, policy, 1));
    }

    /** One row of the table: every contender {@code rounds} times, the order rotated each round; their medians. */
    private static void row(Setup setup, String keySpace, int threads, int seconds, int rounds, String[] keys)
            throws Exception {
        List<Call> calls = setup.calls();
        List<List<Result>> perContender = new ArrayList<>();
        for (int c = 0; c < calls.size(); c++) {
            perContender.add(new ArrayList<>());
        }
        if (!Boolean.getBoolean("sluice.bench.cold")) {     // a round not kept: the JIT's work is not a decision's
            for (int c = 0; c < calls.size(); c++) {
                run(setup.jedis(), setup.names().get(c), keySpace, threads, 1, calls.get(c), keys);
            }
        }
        for (int round = 0; round < rounds; round++) {
            for (int i = 0; i < calls.size(); i++) {
                int c = (i + round) % calls.size();         // rotate the order: no contender always first
                perContender.get(c).add(run(setup.jedis(), setup.names().get(c), keySpace, threads, seconds,
                        calls.get(c), keys));
            }
        }
        for (int c = 0; c < calls.size(); c++) {
            print(median(perContender.get(c)), "");
        }
        if (Boolean.getBoolean("sluice.bench.each")) {      // each round's figures, for the spread of a ratio
            for (int round = 0; round < rounds; round++) {
                for (int c = 0; c < calls.size(); c++) {
                    print(perContender.get(c).get(round), "  round " + (round + 1) + " ");
                }
            }
        }
    }

    private static void print(Result r, String prefix) {
        System.out.printf(Locale.ROOT, "%-26s %-13s %7d %11.0f %10.1f %10.1f %9.2f %9.2f %9.2f %9.2f %6.2f %6.2f%n",
                prefix + r.name, r.keys, r.threads, r.perSecond, r.p50Micros, r.p99Micros, r.serverMicros,
                r.serverCpuMicros, r.clientCpuMicros, r.clientSysMicros, r.switches, r.involuntary);
    }

    private static Result median(List<Result> rounds) {
        List<Result> byRate = new ArrayList<>(rounds);
        byRate.sort((a, b) -> Double.compare(a.perSecond, b.perSecond));
        Result m = byRate.get(byRate.size() / 2);
        double[] p50 = rounds.stream().mapToDouble(Result::p50Micros).sorted().toArray();
        double[] p99 = rounds.stream().mapToDouble(Result::p99Micros).sorted().toArray();
        return new Result(m.name, m.keys, m.threads, m.perSecond, p50[p50.length / 2], p99[p99.length / 2],
                m.serverMicros, m.serverCpuMicros, m.clientCpuMicros, m.clientSysMicros, m.switches, m.involuntary);
    }

    /** Sum of usec over every command in INFO commandstats, and the server's CPU seconds (user + sys). */
    private static double[] serverStats(RedisClient jedis) {
        double usec = 0;
        for (String line : jedis.info("commandstats").split("\\r?\\n")) {
            int at = line.indexOf("usec=");
            if (line.startsWith("cmdstat_") && at > 0) {
                int end = line.indexOf(',', at);
                usec += Double.parseDouble(line.substring(at + 5, end));
            }
        }
        double cpu = 0;
        for (String line : jedis.info("cpu").split("\\r?\\n")) {
            if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
                cpu += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        return new double[] {usec, cpu};
    }

    private static Result run(RedisClient jedis, String name, String keySpace, int threads, int seconds, Call call,
            String[] keys) throws Exception {
        double[][] stats = new double[2][];
        LoadWindow w = LoadWindow.measure(call, threads, seconds, keys, () -> {
            jedis.sendCommand(Protocol.Command.CONFIG, "RESETSTAT");
            stats[0] = serverStats(jedis);
        }, () -> stats[1] = serverStats(jedis));
        double n = Math.max(1, w.total());
        return new Result(name, keySpace, threads, w.perSecond(), w.micros(0.5), w.micros(0.99), stats[1][0] / n,
                (stats[1][1] - stats[0][1]) * 1e6 / n, w.clientCpuNanos() / 1000.0 / n,
                w.kernel().systemNanos() / 1000.0 / n, w.kernel().switches() / n, w.kernel().involuntary() / n);
    }
}
