package io.sluice.benchmarks;

import io.sluice.core.Engine;
import io.sluice.core.LeaseCounts;
import io.sluice.core.policy.Policy;
import io.sluice.core.testing.RedisProcess;
import io.sluice.redis.RedisStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;

/**
 * Leases only where they pay (issue 31): one rule over {@value Keys#COUNT} keys, with {@code leased 100ms} and
 * without, each an engine of its own on one {@code redis-server} (coalescing on, the default), rows interleaved and
 * their order swapped every round, so that a round's ratio compares runs on the same machine load. Keys come at random,
 * each far below a rate that would make a block pay: the leasing rule must cost nothing for them. The bare one-key
 * {@code EVALSHA} is the floor. Per row: decisions a second, the ratio to the same round's rule without leases, script
 * calls per decision ({@code INFO commandstats}), client CPU and Redis CPU ({@code INFO cpu}) per decision, checks
 * answered from blocks. Then, side by
 * side: half the threads on each engine in the same seconds, so that a load that comes and goes on a shared machine
 * weighs on both alike; the ratio is of their decisions in those seconds (two coalescers sharing one Redis: how they
 * share it moves that ratio too). A round not kept comes first, for the JIT.
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar io.sluice.benchmarks.LeasedKeys [seconds [rounds [threads]]]}
 */
public final class LeasedKeys {

    private static final String POLICY = "100/1s";

    private LeasedKeys() {}

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        int threads = args.length > 2 ? Integer.parseInt(args[2]) : 16;
        String url = RedisProcess.external();
        RedisProcess redis = url == null ? RedisProcess.start() : null;
        url = url != null ? url : redis.url();
        String[] keys = Keys.distinct(Keys.COUNT);
        GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
        pool.setMaxTotal(threads);
        pool.setMaxIdle(threads);
        try (RedisClient jedis = RedisClient.builder().fromURI(url).poolConfig(pool).build();
                Engine plain = engine(url, threads);
                Engine leasing = engine(url, threads)) {
            String sha = jedis.scriptLoad(RedisLoad.BARE_GCRA);
            Policy unleased = Policy.parse(POLICY);
            Policy leased = Policy.parse(POLICY + " leased 100ms");
            List<String> names = List.of("sluice-" + POLICY, "sluice-" + POLICY + "-leased", "bare-evalsha");
            List<RedisLoad.Call> calls = List.of(
                    key -> plain.tryAcquire("plain", key, unleased, 1),
                    key -> leasing.tryAcquire("leased", key, leased, 1),
                    key -> jedis.evalsha(sha, List.of("bare:" + key), List.of()));
            System.out.printf(Locale.ROOT, "%d keys, %d threads, %d s per row, %d rounds, %d cores%n", keys.length,
                    threads, seconds, rounds, Runtime.getRuntime().availableProcessors());
            System.out.printf(Locale.ROOT, "%-26s %5s %12s %8s %10s %11s %11s %11s%n", "row", "round", "decisions/s",
                    "ratio", "calls/dec", "cpu us/dec", "srvCPU us", "from blocks");
            for (RedisLoad.Call call : calls) {         // a round not kept: the JIT compiles then, not while measuring
                LoadWindow.measure(call, threads, 1, keys, () -> { }, () -> { });
            }
            for (int round = 0; round < rounds; round++) {
                List<Integer> order = round % 2 == 0 ? List.of(0, 1, 2) : List.of(1, 0, 2);
                double[] rates = new double[names.size()];
                String[] lines = new String[names.size()];
                for (int row : order) {
                    long blocksBefore = leasing.leaseCounts().leasedDecisions();
                    long[] scripts = new long[2];
                    double[] cpu = new double[2];
                    LoadWindow w = LoadWindow.measure(calls.get(row), threads, seconds, keys, () -> {
                        jedis.sendCommand(Protocol.Command.CONFIG, "RESETSTAT");
                        cpu[0] = redisCpuSeconds(jedis);
                    }, () -> {
                        scripts[0] = LeasedLoad.scriptCalls(jedis);
                        cpu[1] = redisCpuSeconds(jedis);
                    });
                    rates[row] = w.perSecond();
                    LeaseCounts c = leasing.leaseCounts();
                    lines[row] = String.format(Locale.ROOT, "%-26s %5d %12.0f %%8s %10.4f %11.1f %11.1f %11d",
                            names.get(row), round, w.perSecond(), scripts[0] / (double) Math.max(1, w.total()),
                            w.clientCpuNanos() / 1000.0 / Math.max(1, w.total()),
                            (cpu[1] - cpu[0]) * 1e6 / Math.max(1, w.total()),
                            row == 1 ? c.leasedDecisions() - blocksBefore : 0);
                }
                for (int row = 0; row < names.size(); row++) {
                    System.out.println(String.format(Locale.ROOT, lines[row],
                            String.format(Locale.ROOT, "%.3fx", rates[row] / rates[0])));
                }
            }
            for (int round = 0; round < rounds; round++) {
                sideBySide(calls.get(0), calls.get(1), threads, seconds, keys, round);
            }
        } finally {
            if (redis != null) {
                redis.close();
            }
        }
        System.exit(0);
    }

    /** Half the threads on each of two calls, the same seconds: their decisions a second and the ratio. */
    private static void sideBySide(RedisLoad.Call plain, RedisLoad.Call leased, int threads, int seconds, String[] keys,
            int round) throws Exception {
        LoadWindow[] windows = new LoadWindow[2];
        Thread other = new Thread(() -> {
            try {
                windows[1] = LoadWindow.measure(leased, threads / 2, seconds, keys, () -> { }, () -> { });
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        other.start();
        windows[0] = LoadWindow.measure(plain, threads / 2, seconds, keys, () -> { }, () -> { });
        other.join();
        System.out.printf(Locale.ROOT, "side by side, %d + %d threads, round %d: %.0f and %.0f (leased) decisions/s:"
                + " %.3fx%n", threads / 2, threads / 2, round, windows[0].perSecond(), windows[1].perSecond(),
                windows[1].perSecond() / windows[0].perSecond());
    }

    /** @return Redis's CPU time so far, user and system, in seconds ({@code INFO cpu}) */
    private static double redisCpuSeconds(RedisClient jedis) {
        double cpu = 0;
        for (String line : jedis.info("cpu").split("\\r?\\n")) {
            if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
                cpu += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        return cpu;
    }

    private static Engine engine(String url, int threads) {
        RedisStore store = RedisStore.builder().url(url).poolSize(threads).timeout(Duration.ofSeconds(2)).build();
        return Engine.builder().store(store).build();
    }
}
