package io.sluice.benchmarks;

import io.sluice.core.policy.Policy;
import io.sluice.core.store.Check;
import io.sluice.redis.RedisStore;
import io.sluice.redis.StoreBatches;
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
 * The instructions Redis executes per decision, Sluice against the bare one-key script ({@link RedisLoad#BARE_GCRA}),
 * counted by valgrind's callgrind around a redis-server (issue 21, "a lighter script", and issue 31, "Redis work per
 * decision": wall time cannot tell 10% apart on a loaded two-core machine; instructions are deterministic to about
 * 0.5%). Run by {@code benchmarks/script-instructions.sh}, which starts the server under callgrind; this makes the calls
 * from one connection and for each row zeroes the counters, makes the calls and dumps the counters
 * ({@code callgrind_control}). Instructions per decision: the dump's total, less the server's idle instructions over
 * the same time (its event loop and cron at {@code hz 1}, measured first), divided by the decisions.
 *
 * <p>Rows, each on one hot key and on 100,000 keys (called in turn): the bare script per call (the floor), with no
 * argument, and, on the hot key, with the one argument of the function's fast mode and with the three of the
 * script's; Sluice's one GCRA rule ({@code 1000000000/1s}: always admitted, one write per decision) alone by
 * {@code FCALL} (Redis 7) and by {@code EVALSHA} (Redis 6.2's path, forced on Redis 7 by a user denied {@code FCALL}),
 * which is also what the coalescer sends for a lone request; then Sluice's batch calls (the coalescer's, made on
 * demand by {@link StoreBatches}) of 8, 32 and 64 requests of one rule and of four rules; and the floor of a batch that
 * keeps a key and a TTL per rule, the bare script batched 32 per call with each key read once (one {@code MGET}) and
 * written once ({@link RedisLoad#BARE_GCRA_BATCH_ONCE}); and the floor of four rules, the bare script over four keys per
 * call ({@link RedisLoad#BARE_GCRA_KEYS}), and batched 32 per call over four keys per decision (the floor of four
 * rules in a batch: no all-or-nothing, each key read once and written once). Every row is called before
 * any is measured, so that each Lua state holds all it will hold. Sluice's rows go through {@link RedisStore} (raw
 * keys), so they measure the arguments it sends.
 *
 * <p>{@code java -cp benchmarks.jar io.sluice.benchmarks.ScriptInstructions port pid dumpDir [decisions [rounds]]}
 */
public final class ScriptInstructions {

    private static final Policy POLICY = Policy.parse("1000000000/1s");
    private static final int[] BATCHES = {8, 32, 64};

    /** One call of a row: {@code decisions} decisions from key number {@code at} on. */
    private interface Row {
        void call(String[] keys, int at);
    }

    /** A row: its name, its decisions per call, and whether it runs on the hot key or on 100,000 keys. */
    private record Named(String name, int perCall, boolean hot, Row row) {}

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        String pid = args[1];
        Path dumps = Path.of(args[2]);
        int decisions = args.length > 3 ? Integer.parseInt(args[3]) : 6400;
        int rounds = args.length > 4 ? Integer.parseInt(args[4]) : 1;
        String url = "redis://127.0.0.1:" + port;
        String[] many = Keys.distinct(Keys.COUNT);
        String[] hot = {"hot"};
        try (Jedis jedis = new Jedis("127.0.0.1", port, 600_000)) {
            String version = jedis.info("server").lines().filter(l -> l.startsWith("redis_version:"))
                    .map(l -> l.substring(14).trim()).findFirst().orElse("?");
            boolean functions = !version.startsWith("6.");
            String sha = jedis.scriptLoad(RedisLoad.BARE_GCRA);
            List<RedisStore> stores = new ArrayList<>();
            RedisStore fcall = store(url);
            stores.add(fcall);
            if (functions) {
                jedis.aclSetUser("evalsha", "on", ">pw", "~*", "&*", "+@all", "-fcall");
            }
            // Redis 6.2 has no FCALL: the default user's store calls EVALSHA from its first call on
            RedisStore evalsha = store(functions ? "redis://evalsha:pw@127.0.0.1:" + port : url);
            stores.add(evalsha);
            List<Named> rows = new ArrayList<>();
            for (boolean isHot : new boolean[] {true, false}) {
                rows.addAll(rows(jedis, sha, fcall, evalsha, functions, isHot));
            }

            for (Named r : rows) {
                r.row().call(r.hot() ? hot : many, 0);
            }
            for (Named r : rows) {
                for (int i = 0; i < 200; i += r.perCall()) {
                    r.row().call(r.hot() ? hot : many, i);
                }
            }
            long[] idle = measure(pid, dumps, "idle", () -> sleep(3_000));
            double idlePerNano = (double) idle[0] / idle[1];
            System.out.printf(Locale.ROOT, "Redis %s under callgrind, hz 1; %d decisions per row, %d round(s); idle %.0f"
                    + " instructions/s subtracted%n", version, decisions, rounds, idlePerNano * 1e9);
            double[][] perDecision = new double[rows.size()][rounds];
            for (int round = 0; round < rounds; round++) {
                for (int i = 0; i < rows.size(); i++) {
                    Named named = rows.get(i);
                    String[] keys = named.hot() ? hot : many;
                    int calls = Math.max(1, decisions / named.perCall());
                    int from = round * decisions;
                    long[] m = measure(pid, dumps, "row" + i, () -> {
                        for (int c = 0; c < calls; c++) {
                            named.row().call(keys, from + c * named.perCall());
                        }
                    });
                    perDecision[i][round] = (m[0] - idlePerNano * m[1]) / ((double) calls * named.perCall());
                }
            }
            print(rows, perDecision);
            for (RedisStore s : stores) {
                s.close();
            }
        }
    }

    /** The rows of one key space: the bare script, Sluice alone (FCALL, EVALSHA), Sluice's batches. */
    private static List<Named> rows(Jedis jedis, String sha, RedisStore fcall, RedisStore evalsha, boolean functions,
            boolean hot) {
        String space = hot ? "hot key" : "100,000 keys";
        List<Named> rows = new ArrayList<>();
        rows.add(new Named("bare one-key script, per call (floor), " + space, 1, hot,
                (keys, at) -> jedis.evalsha(sha, List.of("b:0:" + key(keys, at)), List.of())));
        if (hot) {
            rows.add(new Named("the same, one unused argument (g1000000000:1)", 1, true,
                    (keys, at) -> jedis.evalsha(sha, List.of("b:1:hot"), List.of("g1000000000:1"))));
            rows.add(new Named("the same, three unused arguments (g 1000000000 1)", 1, true,
                    (keys, at) -> jedis.evalsha(sha, List.of("b:3:hot"), List.of("g", "1000000000", "1"))));
        }
        if (functions) {
            rows.add(new Named("Sluice, one rule, alone, FCALL, " + space, 1, hot,
                    (keys, at) -> fcall.evaluate(List.of(Check.of("f", key(keys, at), POLICY, 1)), 0)));
        }
        rows.add(new Named("Sluice, one rule, alone, EVALSHA, " + space, 1, hot,
                (keys, at) -> evalsha.evaluate(List.of(Check.of("e", key(keys, at), POLICY, 1)), 0)));
        String fourKeys = jedis.scriptLoad(RedisLoad.BARE_GCRA_KEYS);
        rows.add(new Named("bare four-key script, per call, " + space, 1, hot, (keys, at) -> {
            String key = key(keys, at);
            jedis.evalsha(fourKeys, List.of("b41:" + key, "b42:" + key, "b43:" + key, "b44:" + key), List.of());
        }));
        if (functions) {
            rows.add(new Named("Sluice, four rules, alone, FCALL, " + space, 1, hot,
                    (keys, at) -> fcall.evaluate(four("f4", key(keys, at)), 0)));
        }
        String once = jedis.scriptLoad(RedisLoad.BARE_GCRA_BATCH_ONCE);
        rows.add(new Named("bare script batched, 32 per call, each key once, " + space, 32, hot, (keys, at) -> {
            List<String> batch = new ArrayList<>(32);
            for (int i = 0; i < 32; i++) {
                batch.add("bo:" + key(keys, at + i));
            }
            jedis.evalsha(once, batch, List.of());
        }));
        rows.add(new Named("bare script batched, 32 per call, four keys each, " + space, 32, hot, (keys, at) -> {
            List<String> batch = new ArrayList<>(128);
            for (int i = 0; i < 32; i++) {
                for (int r = 1; r <= 4; r++) {
                    batch.add("bo" + r + ":" + key(keys, at + i));
                }
            }
            jedis.evalsha(once, batch, List.of());
        }));
        for (int rules : new int[] {1, 4}) {
            for (int size : BATCHES) {
                rows.add(new Named("Sluice, " + (rules == 1 ? "one rule" : "four rules") + ", batch of " + size + ", "
                        + space, size, hot, (keys, at) -> {
                            List<List<Check>> batch = new ArrayList<>(size);
                            for (int i = 0; i < size; i++) {
                                String key = key(keys, at + i);
                                batch.add(rules == 1 ? List.of(Check.of("c", key, POLICY, 1)) : four("c4", key));
                            }
                            StoreBatches.together(fcall, batch);
                        }));
            }
        }
        return rows;
    }

    private static String key(String[] keys, int at) {
        return keys[at % keys.length];
    }

    private static List<Check> four(String prefix, String key) {
        return List.of(Check.of(prefix + "1", key, POLICY, 1), Check.of(prefix + "2", key, POLICY, 1),
                Check.of(prefix + "3", key, POLICY, 1), Check.of(prefix + "4", key, POLICY, 1));
    }

    /** Each row's mean per decision, and its ratio to the floor of its key space (the bare script per call). */
    private static void print(List<Named> rows, double[][] perDecision) {
        System.out.printf(Locale.ROOT, "%-62s %12s %8s  %s%n", "row", "instr/dec", "÷ floor", "rounds");
        double floor = 0;
        for (int i = 0; i < rows.size(); i++) {
            double mean = mean(perDecision[i]);
            if (rows.get(i).name().startsWith("bare one-key script, per call")) {
                floor = mean;
            }
            StringBuilder each = new StringBuilder();
            for (double v : perDecision[i]) {
                each.append(String.format(Locale.ROOT, " %.0f (%.3f)", v, v / floor));
            }
            System.out.printf(Locale.ROOT, "%-62s %,12.0f %8.3f %s%n", rows.get(i).name(), mean, mean / floor, each);
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
