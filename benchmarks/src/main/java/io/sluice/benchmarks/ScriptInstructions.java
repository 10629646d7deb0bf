package io.sluice.benchmarks;

import io.sluice.core.policy.Policy;
import io.sluice.core.store.Check;
import io.sluice.redis.RedisStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import redis.clients.jedis.Jedis;

/**
 * The instructions Redis executes per decision of one rule, Sluice's fast mode against the bare one-key script
 * ({@link RedisLoad#BARE_GCRA}), counted by valgrind's callgrind around a redis-server (issue 21, "a lighter script":
 * wall time cannot tell 10% apart on a loaded two-core machine; instructions are deterministic to about 0.5%). Run
 * by {@code benchmarks/script-instructions.sh}, which starts the server under callgrind; this makes the calls from
 * one connection, on one hot key per row (all keys of the same length), and for each row zeroes the counters, makes
 * the calls and dumps the counters ({@code callgrind_control}). Instructions per call: the dump's total, less the
 * server's idle instructions over the same time (its event loop and cron at {@code hz 1}, measured first), divided
 * by the calls.
 *
 * <p>Rows: the bare script with no argument (the floor), with the one argument of the function's fast mode and with
 * the three of the script's; Sluice's one GCRA rule ({@code 1000000000/1s}: always admitted, one write per call) by
 * {@code FCALL} (Redis 7) and by {@code EVALSHA} (Redis 6.2's path, forced on Redis 7 by a user denied
 * {@code FCALL}). Every row is called once before any is measured, so that each Lua state holds all it will hold.
 * Sluice's rows go through {@link RedisStore} (raw keys, no coalescing), so they measure the arguments it sends.
 *
 * <p>{@code java -cp benchmarks.jar io.sluice.benchmarks.ScriptInstructions port pid dumpDir [calls [rounds]]}
 */
public final class ScriptInstructions {

    private static final Policy POLICY = Policy.parse("1000000000/1s");

    private interface Row {
        void call();
    }

    private record Named(String name, Row row) {}

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        String pid = args[1];
        Path dumps = Path.of(args[2]);
        int calls = args.length > 3 ? Integer.parseInt(args[3]) : 5000;
        int rounds = args.length > 4 ? Integer.parseInt(args[4]) : 1;
        String url = "redis://127.0.0.1:" + port;
        try (Jedis jedis = new Jedis("127.0.0.1", port, 600_000)) {
            String version = jedis.info("server").lines().filter(l -> l.startsWith("redis_version:"))
                    .map(l -> l.substring(14).trim()).findFirst().orElse("?");
            boolean functions = !version.startsWith("6.");
            String sha = jedis.scriptLoad(RedisLoad.BARE_GCRA);
            List<Named> rows = new ArrayList<>();
            rows.add(new Named("bare one-key script, no argument (floor)",
                    () -> jedis.evalsha(sha, List.of("b:0:hot"), List.of())));
            rows.add(new Named("the same, one unused argument (g1000000000:1)",
                    () -> jedis.evalsha(sha, List.of("b:1:hot"), List.of("g1000000000:1"))));
            rows.add(new Named("the same, three unused arguments (g 1000000000 1)",
                    () -> jedis.evalsha(sha, List.of("b:3:hot"), List.of("g", "1000000000", "1"))));
            List<RedisStore> stores = new ArrayList<>();
            if (functions) {
                RedisStore fcall = store(url);
                stores.add(fcall);
                rows.add(new Named("Sluice, one rule, FCALL",
                        () -> fcall.evaluate(List.of(Check.of("f", "hot", POLICY, 1)), 0)));
                jedis.aclSetUser("evalsha", "on", ">pw", "~*", "&*", "+@all", "-fcall");
            }
            // Redis 6.2 has no FCALL: the default user's store calls EVALSHA from its first call on
            RedisStore evalsha = store(functions ? "redis://evalsha:pw@127.0.0.1:" + port : url);
            stores.add(evalsha);
            rows.add(new Named("Sluice, one rule, EVALSHA", () -> evalsha.evaluate(List.of(Check.of("e", "hot",
                    POLICY, 1)), 0)));

            for (Named r : rows) {
                for (int i = 0; i < 200; i++) {
                    r.row().call();
                }
            }
            long[] idle = measure(pid, dumps, "idle", () -> sleep(3_000));
            double idlePerNano = (double) idle[0] / idle[1];
            System.out.printf(Locale.ROOT, "Redis %s under callgrind, hz 1; %d calls per row, %d round(s); idle %.0f"
                    + " instructions/s subtracted%n", version, calls, rounds, idlePerNano * 1e9);
            double[][] perCall = new double[rows.size()][rounds];
            for (int round = 0; round < rounds; round++) {
                for (int i = 0; i < rows.size(); i++) {
                    Row row = rows.get(i).row();
                    long[] m = measure(pid, dumps, "row" + i, () -> {
                        for (int c = 0; c < calls; c++) {
                            row.call();
                        }
                    });
                    perCall[i][round] = (m[0] - idlePerNano * m[1]) / calls;
                }
            }
            double floor = mean(perCall[0]);
            System.out.printf(Locale.ROOT, "%-52s %12s %8s  %s%n", "script, one call", "instructions", "÷ floor",
                    "rounds");
            for (int i = 0; i < rows.size(); i++) {
                double mean = mean(perCall[i]);
                StringBuilder each = new StringBuilder();
                for (double v : perCall[i]) {
                    each.append(String.format(Locale.ROOT, " %.0f", v));
                }
                System.out.printf(Locale.ROOT, "%-52s %,12.0f %8.3f %s%n", rows.get(i).name(), mean, mean / floor,
                        each);
            }
            for (RedisStore s : stores) {
                s.close();
            }
        }
    }

    private static RedisStore store(String url) {
        return RedisStore.builder().url(url).prefix("s").rawKeys(true).coalesce(false)
                .timeout(Duration.ofSeconds(60)).build();
    }

    /** @return the instructions counted while {@code work} ran (callgrind's dump), and its time in ns */
    private static long[] measure(String pid, Path dumps, String name, Runnable work) throws Exception {
        control(pid, "-z");
        long start = System.nanoTime();
        work.run();
        long nanos = System.nanoTime() - start;
        control(pid, "--dump=" + name);
        return new long[] {total(latest(dumps)), nanos};
    }

    private static void control(String pid, String command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("callgrind_control", command, pid).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (p.waitFor() != 0) {
            throw new IllegalStateException("callgrind_control " + command + " " + pid + " failed");
        }
    }

    /** The newest dump: callgrind numbers them {@code callgrind.out.1}, {@code .2}... */
    private static Path latest(Path dumps) throws IOException {
        try (Stream<Path> files = Files.list(dumps)) {
            return files.filter(f -> f.getFileName().toString().matches("callgrind\\.out\\.\\d+"))
                    .max(Comparator.comparingInt(f -> Integer.parseInt(f.getFileName().toString().substring(14))))
                    .orElseThrow(() -> new IllegalStateException("no callgrind dump in " + dumps));
        }
    }

    /** The dump's total of instructions: its line {@code summary: <Ir>} (or {@code totals:}). */
    private static long total(Path dump) throws IOException {
        try (Stream<String> lines = Files.lines(dump)) {
            return lines.filter(l -> l.startsWith("summary:") || l.startsWith("totals:"))
                    .mapToLong(l -> Long.parseLong(l.substring(l.indexOf(':') + 1).trim().split("\\s+")[0]))
                    .findFirst().orElseThrow(() -> new IllegalStateException("no total in " + dump));
        }
    }

    private static double mean(double[] values) {
        double sum = 0;
        for (double v : values) {
            sum += v;
        }
        return sum / values.length;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private ScriptInstructions() {}
}
