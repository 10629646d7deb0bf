package io.sluice.benchmarks;

import io.sluice.core.Engine;
import io.sluice.core.LeaseCounts;
import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import io.sluice.core.time.TimeSource;
import io.sluice.redis.RedisStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.LongAdder;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.RedisClient;

/**
 * One node of {@link LeasedLoad}, in a JVM of its own: prints {@code ready} once its engine (or client) is open, reads
 * the start time (epoch ms) from standard input, then runs {@value LeasedLoad#THREADS} threads on one key from a second
 * before it (warm-up) to {@code seconds} after it. Prints its totals on one line (decisions, admitted, then the lease
 * counts), then per second of the clock the admissions in it.
 */
final class LeasedNode {

    private LeasedNode() {}

    /** {@code node URL LIMIT SECONDS}; LIMIT "bare" calls the bare floor script. */
    static void main(String[] args) throws Exception {
        long seconds = Long.parseLong(args[3]);
        if (args[2].equals("bare")) {
            bare(args[1], seconds);
        } else {
            sluice(args[1], LeasedLoad.policy(args[2]), seconds);
        }
        System.exit(0);
    }

    /** The floor: the bare one-key script by {@code EVALSHA}, every call a decision admitted. */
    private static void bare(String url, long seconds) throws Exception {
        LongAdder decisions = new LongAdder();
        GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
        pool.setMaxTotal(LeasedLoad.THREADS);
        pool.setMaxIdle(LeasedLoad.THREADS);
        try (RedisClient jedis = RedisClient.builder().fromURI(url).poolConfig(pool).build()) {
            String sha = jedis.scriptLoad(RedisLoad.BARE_GCRA);
            long startAt = startAt();
            load(startAt, startAt + seconds * 1_000, decisions, () -> {
                jedis.evalsha(sha, List.of("bare:hot"), List.of());
                return -1;
            });
        }
        System.out.println(decisions.sum() + " " + decisions.sum() + " 0 0 0 0 0");
    }

    /** Sluice on the application's clock: its decisions, admissions per second of that clock, and its lease counts. */
    private static void sluice(String url, Policy policy, long seconds) throws Exception {
        LongAdder decisions = new LongAdder();
        LongAdder admitted = new LongAdder();
        Map<Long, LongAdder> perSecond = new ConcurrentHashMap<>();
        RedisStore store = RedisStore.builder().url(url).applicationTime(true).poolSize(LeasedLoad.THREADS)
                .timeout(Duration.ofSeconds(2)).build();
        // the last read of a decision is the time it is made at: the store's call reads once, and a spend from a
        // leased block reads again (after a wait for a take, no earlier than the block's take)
        ThreadLocal<long[]> lastRead = ThreadLocal.withInitial(() -> new long[1]);
        TimeSource clock = () -> lastRead.get()[0] = TimeSource.system().nowMicros();
        try (Engine engine = Engine.builder().store(store).timeSource(clock).denialCacheSize(0).build()) {
            long startAt = startAt();
            long endAt = startAt + seconds * 1_000;
            load(startAt, endAt, decisions, () -> {
                Outcome o = engine.tryAcquire("leased", "hot", policy, 1);
                if (!o.allowed()) {
                    return -1;
                }
                long now = lastRead.get()[0];
                if (now >= startAt * 1_000 && now < endAt * 1_000) {
                    admitted.increment();
                    perSecond.computeIfAbsent(second(policy, now, o), s -> new LongAdder()).increment();
                }
                return now;
            });
            LeaseCounts c = engine.leaseCounts();
            System.out.println(decisions.sum() + " " + admitted.sum() + " " + c.leasedDecisions() + " "
                    + c.storeDecisions() + " " + c.takes() + " " + c.permitsTaken() + " " + c.permitsLapsed());
        }
        new TreeMap<>(perSecond).forEach((s, n) -> System.out.println(s + " " + n.sum()));
    }

    /**
     * @return the second an admission counts in: for a fixed window, the window the store counted it in (its reset is
     *     that window's end: a request that reached Redis after a later one had opened the next window counts there,
     *     whatever its clock read), else the second its decision was made in
     */
    private static long second(Policy policy, long now, Outcome o) {
        if (policy.algorithm() == Algorithm.FIXED_WINDOW) {
            return (now + o.resetAfterMicros() - 1) / 1_000_000;
        }
        return now / 1_000_000;
    }

    /** Says it is ready, and reads when to start. */
    private static long startAt() throws IOException {
        System.out.println("ready");
        System.out.flush();
        return Long.parseLong(new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine()
                .trim());
    }

    private interface Decide {
        long run() throws Exception;
    }

    private static void load(long startAt, long endAt, LongAdder decisions, Decide decide) throws Exception {
        CountDownLatch done = new CountDownLatch(LeasedLoad.THREADS);
        for (int t = 0; t < LeasedLoad.THREADS; t++) {
            Thread thread = new Thread(() -> {
                try {
                    while (System.currentTimeMillis() < startAt - 1_000) {
                        Thread.sleep(10);
                    }
                    for (long ms = System.currentTimeMillis(); ms < endAt; ms = System.currentTimeMillis()) {
                        decide.run();
                        if (ms >= startAt) {
                            decisions.increment();
                        }
                    }
                } catch (Exception e) {
                    e.printStackTrace();
                } finally {
                    done.countDown();
                }
            });
            thread.setDaemon(true);
            thread.start();
        }
        done.await();
    }
}
