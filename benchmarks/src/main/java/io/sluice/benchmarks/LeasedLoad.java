package io.sluice.benchmarks;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Policy;
import io.sluice.core.policy.PolicyParser;
import io.sluice.core.testing.RedisProcess;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;

/**
 * Leased permits (issue 21): 4 JVMs x 16 threads on one hot key against one Redis, each JVM a node with its own
 * engine and {@code RedisStore}. Rows: the bare one-key {@code EVALSHA} floor; Sluice with a limit far above the load,
 * leased and not; Sluice with a limit the load passes (1,000 a second, fixed window and GCRA), leased, with the
 * admissions counted per second of the application's clock (the store runs on it, so every admission falls in its
 * window exactly). Redis calls per decision come from {@code INFO commandstats} over the measured seconds.
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar io.sluice.benchmarks.LeasedLoad [seconds] [rounds]}
 */
public final class LeasedLoad {

    static final int NODES = 4;
    static final int THREADS = 16;

    /** The rows: a name and the limit its rule has (null: the bare floor script). */
    private static final Map<String, String> ROWS = new LinkedHashMap<>();

    static {
        ROWS.put("bare-evalsha", null);
        ROWS.put("sluice-10M/s", "fixed-window:10000000/1s");
        ROWS.put("sluice-10M/s-leased", "fixed-window:10000000/1s leased 100ms");
        ROWS.put("sluice-1000/s-fw-leased", "fixed-window:1000/1s leased 100ms");
        ROWS.put("sluice-1000/s-gcra-leased", "gcra:1000/1s leased 100ms");
    }

    private LeasedLoad() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("node")) {
            LeasedNode.main(args);
            return;
        }
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        String url = RedisProcess.external();
        RedisProcess redis = url == null ? RedisProcess.start() : null;
        url = url != null ? url : redis.url();
        try (RedisClient jedis = RedisClient.create(url)) {
            System.out.printf(Locale.ROOT, "%d JVMs x %d threads, one key, %d s per row, %d rounds, %d cores%n",
                    NODES, THREADS, seconds, rounds, Runtime.getRuntime().availableProcessors());
            System.out.printf(Locale.ROOT, "%-26s %5s %12s %12s %11s %10s %8s %8s %s%n", "row", "round", "decisions/s",
                    "admitted/s", "calls/dec", "from blocks", "lapsed", "over", "admitted per second");
            for (int round = 0; round < rounds; round++) {
                for (Map.Entry<String, String> row : ROWS.entrySet()) {
                    run(jedis, url, row.getKey(), row.getValue(), seconds, round);
                }
            }
        } finally {
            if (redis != null) {
                redis.close();
            }
        }
        System.exit(0);
    }

    private static void run(RedisClient jedis, String url, String name, String limit, int seconds, int round)
            throws Exception {
        jedis.flushAll();
        List<Process> nodes = new ArrayList<>();
        List<BufferedReader> outputs = new ArrayList<>();
        for (int n = 0; n < NODES; n++) {
            Process p = node(url, limit == null ? "bare" : limit, seconds);
            nodes.add(p);
            outputs.add(new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)));
        }
        for (BufferedReader out : outputs) {
            if (!"ready".equals(out.readLine())) {
                throw new IllegalStateException("a node of " + name + " did not start");
            }
        }
        long startAt = System.currentTimeMillis() + 1_500;        // a second of warm-up, then measured
        for (Process p : nodes) {
            p.getOutputStream().write((startAt + "\n").getBytes(StandardCharsets.UTF_8));
            p.getOutputStream().flush();
        }
        Thread.sleep(Math.max(0, startAt - System.currentTimeMillis()));
        jedis.sendCommand(Protocol.Command.CONFIG, "RESETSTAT");
        long[] sums = new long[7];
        Map<Long, Long> perSecond = new TreeMap<>();
        for (int n = 0; n < NODES; n++) {
            read(nodes.get(n), outputs.get(n), sums, perSecond);
        }
        print(name, limit, seconds, round, sums, perSecond, scriptCalls(jedis));
    }

    /**
     * One line: decisions and admissions a second, script calls per decision, checks answered from blocks, permits
     * lapsed; for the 1,000-a-second rows the windows of a second past the policy's bound (the fixed window: its
     * limit; GCRA: its burst and a second's rate, 2,000) and the admissions per second.
     */
    private static void print(String name, String limit, int seconds, int round, long[] sums, Map<Long, Long> perSecond,
            long calls) {
        String over = "";
        String windows = "";
        if (limit != null && limit.contains(":1000/1s")) {
            long bound = limit.startsWith("gcra") ? 2_000 : 1_000;
            over = Long.toString(perSecond.values().stream().filter(v -> v > bound).count());
            windows = perSecond.values().toString();
        }
        System.out.printf(Locale.ROOT, "%-26s %5d %12.0f %12.0f %11.4f %10d %8d %8s %s%n", name, round,
                sums[0] / (double) seconds, sums[1] / (double) seconds, calls / (double) Math.max(1, sums[0]),
                sums[2], sums[6], over, windows);
    }

    private static Process node(String url, String limit, int seconds) throws Exception {
        Path java = Paths.get(System.getProperty("java.home"), "bin", "java");
        ProcessBuilder b = new ProcessBuilder(java.toString(), "-Dslf4j.internal.verbosity=WARN", "-cp",
                System.getProperty("java.class.path"), LeasedLoad.class.getName(), "node", url, limit,
                Integer.toString(seconds));
        b.redirectError(ProcessBuilder.Redirect.DISCARD);
        return b.start();
    }

    /** Adds a node's figures: decisions, admitted, lease counts, and its admissions per second of the clock. */
    private static void read(Process p, BufferedReader output, long[] sums, Map<Long, Long> perSecond) throws Exception {
        try (BufferedReader in = output) {
            String[] totals = in.readLine().trim().split(" ");
            for (int i = 0; i < totals.length; i++) {
                sums[i] += Long.parseLong(totals[i]);
            }
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                String[] kv = line.trim().split(" ");
                perSecond.merge(Long.parseLong(kv[0]), Long.parseLong(kv[1]), Long::sum);
            }
        }
        p.waitFor();
    }

    /** @return the script calls Redis ran since the reset: {@code FCALL}, {@code EVALSHA} and {@code EVAL} */
    static long scriptCalls(RedisClient jedis) {
        long calls = 0;
        for (String line : jedis.info("commandstats").split("\\r?\\n")) {
            if (line.startsWith("cmdstat_fcall:") || line.startsWith("cmdstat_evalsha:")
                    || line.startsWith("cmdstat_eval:")) {
                int at = line.indexOf("calls=");
                calls += Long.parseLong(line.substring(at + 6, line.indexOf(',', at)));
            }
        }
        return calls;
    }

    /** @return the policy a row's limit names, "algorithm:notation" */
    static Policy policy(String limit) {
        int colon = limit.indexOf(':');
        return PolicyParser.parse("limit", limit.substring(colon + 1), Algorithm.fromId("row", limit.substring(0, colon)));
    }
}
