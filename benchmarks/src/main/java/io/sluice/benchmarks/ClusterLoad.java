package io.sluice.benchmarks;

import io.sluice.core.policy.Policy;
import io.sluice.core.store.Check;
import io.sluice.core.testing.RedisProcess;
import io.sluice.redis.RedisStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * Redis Cluster scale-out: decisions per second of one GCRA rule over 100,000 keys against one standalone master and
 * against a Cluster of {@value #MASTERS} masters, both started here on loopback, at 16 and 64 threads, every
 * contender in the same run, in interleaved rounds. Sluice ({@code RedisStore.builder().url(...)} and
 * {@code .cluster(...)}), the same with {@code coalesce(false)}, and the floor: {@link RedisLoad#BARE_GCRA}'s one-key
 * script by {@code EVALSHA} (through {@code RedisClusterClient} on the Cluster, which routes each key to its master).
 * Ends with each contender's ratio, Cluster ÷ one master.
 *
 * <p>Columns per decision, summed over the contender's servers, as {@link RedisLoad}'s: {@code srv µs} the time
 * {@code INFO commandstats} counts (every command but {@code INFO} and {@code CONFIG}; on Redis 7 a script's own
 * commands count inside its call and again on their own), {@code srvCPU µs} the servers' CPU time, user and system,
 * {@code cliCPU µs} this JVM's. {@code busiest}: the share of those commands that the busiest server ran.
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar io.sluice.benchmarks.ClusterLoad [seconds] [rounds]}
 */
public final class ClusterLoad {

    private static final int MASTERS = 3;
    /** The callers: 192 gives each of the Cluster's masters the callers that one master has at 64. */
    private static final int[] THREADS = {16, 64, 192};
    private static final int POOL = 64;
    private static final Policy POLICY = Policy.parse("1000000000/1s");

    /** One contender: its name, where it runs, its call, and the servers whose counters it is measured by. */
    private record Contender(String name, String where, RedisLoad.Call call, List<Jedis> servers) {}

    /** Medians of one contender at one thread count; server figures summed over its servers, per decision. */
    private record Result(double perSecond, double p50Micros, double p99Micros, double serverMicros,
            double serverCpuMicros, double clientCpuMicros, double busiestShare) {}

    private ClusterLoad() {}

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 2;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        List<AutoCloseable> opened = new ArrayList<>();
        // the servers are processes of their own: stopped on every way out, an interrupt (Ctrl-C) included
        Runtime.getRuntime().addShutdownHook(new Thread(() -> closeAll(opened)));
        try {
            RedisProcess single = open(opened, RedisProcess.start());
            LocalCluster cluster = open(opened, LocalCluster.start(MASTERS));
            List<Contender> contenders = contenders(single, cluster, opened);
            System.out.println("Redis " + RedisProcess.version(single.url()) + ", one master and a Cluster of "
                    + MASTERS + " masters on loopback, " + Runtime.getRuntime().availableProcessors() + " cores, one"
                    + " GCRA rule over " + Keys.COUNT + " keys, " + seconds + " s per row, " + rounds
                    + " interleaved rounds, medians");
            System.out.printf(Locale.ROOT, "%-20s %-11s %7s %11s %9s %9s %8s %9s %9s %8s%n", "contender", "masters",
                    "threads", "decisions/s", "p50 µs", "p99 µs", "srv µs", "srvCPU µs", "cliCPU µs", "busiest");
            String[] keys = Keys.distinct(Keys.COUNT);
            Map<String, List<Result>> results = new LinkedHashMap<>();
            for (int threads : THREADS) {
                results.putAll(row(contenders, threads, seconds, rounds, keys));
            }
            ratios(contenders, results);
            perMaster(contenders, results);
        } finally {
            closeAll(opened);
        }
        System.exit(0);
    }

    /** Closes what was opened, the last first; once. */
    private static void closeAll(List<AutoCloseable> opened) {
        synchronized (opened) {
            for (int i = opened.size() - 1; i >= 0; i--) {
                try {
                    opened.get(i).close();
                } catch (Exception e) {
                    System.err.println("closing " + opened.get(i) + ": " + e);
                }
            }
            opened.clear();
        }
    }

    private static List<Contender> contenders(RedisProcess single, LocalCluster cluster, List<AutoCloseable> opened) {
        GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
        pool.setMaxTotal(POOL);
        pool.setMaxIdle(POOL);
        RedisClient bareOne = open(opened, RedisClient.builder().fromURI(single.url()).poolConfig(pool).build());
        Set<HostAndPort> nodes = new LinkedHashSet<>();
        cluster.ports().forEach(p -> nodes.add(new HostAndPort("127.0.0.1", p)));
        RedisClusterClient bareAll = open(opened, RedisClusterClient.builder().nodes(nodes).poolConfig(pool).build());
        List<Jedis> one = List.of(open(opened, new Jedis("127.0.0.1", single.port())));
        List<Jedis> all = cluster.ports().stream().map(p -> open(opened, new Jedis("127.0.0.1", p))).toList();
        String sha = one.get(0).scriptLoad(RedisLoad.BARE_GCRA);
        all.forEach(node -> node.scriptLoad(RedisLoad.BARE_GCRA));      // the same SHA on every master
        RedisStore sluiceOne = open(opened, store(RedisStore.builder().url(single.url()), true));
        RedisStore sluiceAll = open(opened, store(RedisStore.builder().cluster(cluster.seeds()), true));
        RedisStore plainOne = open(opened, store(RedisStore.builder().url(single.url()), false));
        RedisStore plainAll = open(opened, store(RedisStore.builder().cluster(cluster.seeds()), false));
        String inCluster = MASTERS + " (Cluster)";
        return List.of(                         // in pairs, one master then the Cluster: ratios(...) reads them so
                new Contender("bare-evalsha", "1", bare(bareOne, sha), one),
                new Contender("bare-evalsha", inCluster, bare(bareAll, sha), all),
                new Contender("sluice-gcra-1-rule", "1", sluice(sluiceOne, "one"), one),
                new Contender("sluice-gcra-1-rule", inCluster, sluice(sluiceAll, "one"), all),
                new Contender("sluice-uncoalesced", "1", sluice(plainOne, "u"), one),
                new Contender("sluice-uncoalesced", inCluster, sluice(plainAll, "u"), all));
    }

    private static <T extends AutoCloseable> T open(List<AutoCloseable> opened, T resource) {
        synchronized (opened) {
            opened.add(resource);
        }
        return resource;
    }

    private static RedisStore store(RedisStore.Builder builder, boolean coalesce) {
        return builder.poolSize(POOL).timeout(Duration.ofSeconds(2)).coalesce(coalesce).build();
    }

    private static RedisLoad.Call bare(UnifiedJedis jedis, String sha) {
        return key -> jedis.evalsha(sha, List.of("bare:" + key), List.of());
    }

    private static RedisLoad.Call sluice(RedisStore store, String rule) {
        return key -> store.evaluate(List.of(Check.of(rule, key, POLICY, 1)), 0);
    }

    /** One thread count: every contender {@code rounds} times, the order rotated each round; prints the medians. */
    private static Map<String, List<Result>> row(List<Contender> contenders, int threads, int seconds, int rounds,
            String[] keys) throws Exception {
        int n = contenders.size();
        List<List<Result>> perContender = new ArrayList<>();
        for (int c = 0; c < n; c++) {
            perContender.add(new ArrayList<>());
        }
        for (int round = 0; round < rounds; round++) {
            for (int i = 0; i < n; i++) {
                int c = (i + round) % n;                    // rotate the order: no contender always first
                perContender.get(c).add(run(contenders.get(c), threads, seconds, keys));
            }
        }
        cpuPerRound(contenders, perContender, threads);
        Map<String, List<Result>> all = new LinkedHashMap<>();
        for (int c = 0; c < n; c++) {
            Contender contender = contenders.get(c);
            Result r = median(perContender.get(c));
            all.put(id(contender, threads), perContender.get(c));
            System.out.printf(Locale.ROOT, "%-20s %-11s %7d %11.0f %9.1f %9.1f %8.2f %9.2f %9.2f %7.0f%%%n",
                    contender.name(), contender.where(), threads, r.perSecond, r.p50Micros, r.p99Micros,
                    r.serverMicros, r.serverCpuMicros, r.clientCpuMicros, 100 * r.busiestShare);
        }
        return all;
    }

    /**
     * Prints each round's Redis CPU per decision, summed over the masters, Cluster ÷ one master, per contender: the
     * spread of the figure that a loaded machine disturbs least (rounds run the pair close together).
     */
    private static void cpuPerRound(List<Contender> contenders, List<List<Result>> perContender, int threads) {
        for (int c = 0; c + 1 < contenders.size(); c += 2) {
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
                    "  srvCPU per decision, Cluster ÷ one master, %s, %d threads, per round:",
                    contenders.get(c).name(), threads));
            for (int r = 0; r < perContender.get(c).size(); r++) {
                double one = perContender.get(c).get(r).serverCpuMicros;
                double all = perContender.get(c + 1).get(r).serverCpuMicros;
                line.append(String.format(Locale.ROOT, " %.2fx (%.1f/%.1f)", all / one, all, one));
            }
            System.out.println(line);
        }
    }

    private static String id(Contender contender, int threads) {
        return contender.name() + "/" + contender.where() + "/" + threads;
    }

    /** Cluster ÷ one master, decisions per second, for each contender and thread count. */
    private static void ratios(List<Contender> contenders, Map<String, List<Result>> rounds) {
        Map<String, Result> results = new LinkedHashMap<>();
        rounds.forEach((id, each) -> results.put(id, median(each)));
        System.out.println();
        System.out.println("decisions/s, Cluster of " + MASTERS + " ÷ one master (medians of the same run):");
        for (int c = 0; c + 1 < contenders.size(); c += 2) {
            Contender one = contenders.get(c);
            Contender all = contenders.get(c + 1);
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-20s", one.name()));
            for (int threads : THREADS) {
                Result a = results.get(id(all, threads));
                Result o = results.get(id(one, threads));
                line.append(String.format(Locale.ROOT, "  %d threads %.2fx (Redis CPU per decision %.2fx)", threads,
                        a.perSecond / o.perSecond, a.serverCpuMicros / o.serverCpuMicros));
            }
            System.out.println(line);
        }
    }

    /**
     * Redis CPU per decision, summed over the masters, of the Cluster at {@value #MASTERS} times the callers ÷ one
     * master's, per round: each master then sees as many callers as the one master does, as when a fleet's load grows
     * with its masters (at the same callers, each master's batches are a third as large).
     */
    private static void perMaster(List<Contender> contenders, Map<String, List<Result>> rounds) {
        System.out.println("Redis CPU per decision, the Cluster at " + MASTERS + "x the callers ÷ one master, per round:");
        for (int c = 0; c + 1 < contenders.size(); c += 2) {
            for (int threads : THREADS) {
                List<Result> all = rounds.get(id(contenders.get(c + 1), MASTERS * threads));
                List<Result> one = rounds.get(id(contenders.get(c), threads));
                if (all == null || one == null) {
                    continue;
                }
                StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-20s %d threads against %d:",
                        contenders.get(c).name(), MASTERS * threads, threads));
                for (int r = 0; r < Math.min(all.size(), one.size()); r++) {
                    double a = all.get(r).serverCpuMicros;
                    double o = one.get(r).serverCpuMicros;
                    line.append(String.format(Locale.ROOT, " %.2fx (%.1f/%.1f)", a / o, a, o));
                }
                System.out.println(line);
            }
        }
    }

    private static Result median(List<Result> rounds) {
        List<Result> byRate = new ArrayList<>(rounds);
        byRate.sort((a, b) -> Double.compare(a.perSecond, b.perSecond));
        Result m = byRate.get(byRate.size() / 2);
        double[] p50 = rounds.stream().mapToDouble(Result::p50Micros).sorted().toArray();
        double[] p99 = rounds.stream().mapToDouble(Result::p99Micros).sorted().toArray();
        return new Result(m.perSecond, p50[p50.length / 2], p99[p99.length / 2], m.serverMicros, m.serverCpuMicros,
                m.clientCpuMicros, m.busiestShare);
    }

    /**
     * One server's counters: the calls and microseconds of every command in {@code INFO commandstats} (since the last
     * {@code CONFIG RESETSTAT}; a script's own commands included on Redis 7), and its CPU seconds, user and system.
     */
    private record ServerStats(double calls, double usec, double cpuSeconds) {

        static ServerStats of(Jedis server) {
            double calls = 0;
            double usec = 0;
            for (String line : server.info("commandstats").split("\\r?\\n")) {
                if (line.startsWith("cmdstat_") && !line.startsWith("cmdstat_info:")
                        && !line.startsWith("cmdstat_config")) {
                    calls += field(line, "calls=");
                    usec += field(line, "usec=");
                }
            }
            double cpu = 0;
            for (String line : server.info("cpu").split("\\r?\\n")) {
                if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
                    cpu += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
                }
            }
            return new ServerStats(calls, usec, cpu);
        }

        private static double field(String line, String name) {
            int at = line.indexOf(name) + name.length();
            int end = line.indexOf(',', at);
            return Double.parseDouble(line.substring(at, end < 0 ? line.length() : end));
        }
    }

    /** One round of one contender: a second's warm-up, then {@code seconds} measured. */
    private static Result run(Contender contender, int threads, int seconds, String[] keys) throws Exception {
        List<List<ServerStats>> stats = new ArrayList<>(List.of(List.of(), List.of()));
        LoadWindow w = LoadWindow.measure(contender.call(), threads, seconds, keys, () -> {
            contender.servers().forEach(Jedis::configResetStat);
            stats.set(0, contender.servers().stream().map(ServerStats::of).toList());
        }, () -> stats.set(1, contender.servers().stream().map(ServerStats::of).toList()));
        return result(w, stats.get(0), stats.get(1));
    }

    private static Result result(LoadWindow w, List<ServerStats> before, List<ServerStats> after) {
        double n = Math.max(1, w.total());
        double usec = 0;
        double cpu = 0;
        double calls = 0;
        double busiest = 0;
        for (int i = 0; i < after.size(); i++) {
            usec += after.get(i).usec();
            cpu += after.get(i).cpuSeconds() - before.get(i).cpuSeconds();
            calls += after.get(i).calls();
            busiest = Math.max(busiest, after.get(i).calls());
        }
        return new Result(w.perSecond(), w.micros(0.5), w.micros(0.99), usec / n, cpu * 1e6 / n,
                w.clientCpuNanos() / 1000.0 / n, calls == 0 ? 0 : busiest / calls);
    }
}
