package io.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.Engine;
import io.sluice.core.store.Check;
import io.sluice.core.store.Lease;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import io.sluice.core.testing.EngineDifferential;
import io.sluice.core.testing.ManualTimeSource;
import io.sluice.core.testing.RedisProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Redis and memory on one clock that moves forwards and steps back: the {@link MemoryStore} expires and sweeps its
 * state by the same {@link ManualTimeSource} whose time {@link RedisStore} passes to the script (application time).
 * A clock that goes back by up to a minute ({@link MemoryStore#SWEEP_GRACE_MICROS}, the slack Redis's keys get with
 * application time) must find in memory the state Redis still holds: the two stores give the same answers, and a
 * clock going back mints no permit in either. Runs on every Redis {@link RedisDifferentialIT} runs on.
 */
class RedisClockDifferentialIT {

    private record Server(String version, String url, RedisStore store) {}

    private static final long SECOND = 1_000_000;
    /** How far back the clock may step and still find every state it left, in memory as in Redis. */
    private static final long MINUTE = 60 * SECOND;
    private static final List<RedisProcess> started = new ArrayList<>();
    private static final List<Server> servers = new ArrayList<>();

    @BeforeAll
    static void startRedis() throws Exception {
        for (String url : RedisProcess.everyVersion(started)) {
            servers.add(new Server(RedisProcess.version(url), url, RedisStore.builder().url(url).applicationTime(true)
                    .prefix("clock-" + System.nanoTime()).timeout(Duration.ofSeconds(5)).build()));
        }
    }

    @AfterAll
    static void stopRedis() throws Exception {
        for (Server server : servers) {
            server.store().close();
        }
        for (RedisProcess redis : started) {
            redis.close();
        }
    }

    /** Both stores on one clock; each step sets the clock and asks (or releases in) both with the clock's time. */
    private static final class Pair {
        final Server server;
        final ManualTimeSource clock = new ManualTimeSource();
        final MemoryStore memory = MemoryStore.builder().timeSource(clock).build();
        final String rule = "r" + System.nanoTime();

        Pair(Server server) {
            this.server = server;
        }

        Outcome ask(long atMicros, String key, Policy policy, String lease) {
            return evaluate(List.of(new Check(rule, key, policy, 1, false, lease)), atMicros).get(0);
        }

        List<Outcome> evaluate(List<Check> checks, long atMicros) {
            clock.set(atMicros);
            List<Outcome> expected = memory.evaluate(checks, clock.nowMicros());
            assertThat(server.store().evaluate(checks, clock.nowMicros()))
                    .as("Redis %s at %d µs: %s", server.version(), atMicros - ManualTimeSource.START_MICROS, checks)
                    .isEqualTo(expected);
            return expected;
        }

        void release(long atMicros, List<Lease> leases) {
            clock.set(atMicros);
            memory.release(leases, clock.nowMicros());
            server.store().release(leases, clock.nowMicros());
        }
    }

    private static long at(double seconds) {
        return ManualTimeSource.START_MICROS + (long) (seconds * SECOND);
    }

    @Test
    void aGcraKeySweptAfterAnotherKeyArrivesStillDeniesWhenTheClockStepsBack() {
        Policy policy = Policy.parse("1/1s");
        for (Server server : servers) {
            Pair both = new Pair(server);
            assertThat(both.ask(at(0), "a", policy, null).allowed()).isTrue();      // a's state matters until 1 s
            assertThat(both.ask(at(2.5), "b", policy, null).allowed()).isTrue();    // a new key sweeps expired ones
            Outcome again = both.ask(at(0.5), "a", policy, null);                   // back by 2 s
            assertThat(again).as("Redis %s", server.version()).isEqualTo(Outcome.deny(1, 0, 500_000, 500_000));
        }
    }

    @Test
    void aConcurrencyKeySweptAfterAnotherKeyArrivesAdmitsNoSecondRequestWhenTheClockStepsBack() {
        Policy policy = Policy.parse("1 concurrent lease 1s");
        for (Server server : servers) {
            Pair both = new Pair(server);
            assertThat(both.ask(at(0), "a", policy, "l1").allowed()).isTrue();      // in flight until 1 s
            assertThat(both.ask(at(2.5), "b", policy, "l2").allowed()).isTrue();
            Outcome second = both.ask(at(0.5), "a", policy, "l3");
            assertThat(second).as("Redis %s", server.version()).isEqualTo(Outcome.deny(1, 0, 0, 500_000));
        }
    }

    @Test
    void aLeaseReleasedAfterItExpiredStaysReleasedWhenTheClockStepsBack() {
        Policy policy = Policy.parse("1 concurrent lease 1s");
        for (Server server : servers) {
            Pair both = new Pair(server);
            assertThat(both.ask(at(0), "a", policy, "l1").allowed()).isTrue();
            both.release(at(2), List.of(new Lease(both.rule, "a", policy, "l1")));  // the request completed
            Outcome next = both.ask(at(0.5), "a", policy, "l2");
            assertThat(next).as("Redis %s: l1 was released", server.version()).isEqualTo(Outcome.allow(1, 0, 0));
        }
    }

    @Test
    void aStepBackOfAWholeMinuteStillFindsTheStateItLeft() {
        Policy policy = Policy.parse("1/1s");
        long expiry = at(1);
        for (Server server : servers) {
            Pair both = new Pair(server);
            both.ask(at(0), "a", policy, null);                                     // a's state matters until 1 s
            for (int i = 0; i < 10; i++) {
                both.ask(expiry + MINUTE - 1, "new-" + i, policy, null);   // each sweeps
            }
            Outcome back = both.ask(expiry - 1, "a", policy, null);                 // back by a whole minute
            assertThat(back).as("Redis %s", server.version()).isEqualTo(Outcome.deny(1, 0, 1, 1));
        }
    }

    /**
     * Seeded random timelines of every algorithm (the policies of {@link RedisDifferentialIT}, sometimes with a second
     * rule of another algorithm), on recurring keys and new ones (each new key sweeps), leases taken and released,
     * the clock moving forwards by up to a few periods and stepping back by up to a minute from the latest time.
     */
    @ParameterizedTest
    @MethodSource("io.sluice.redis.RedisDifferentialIT#registered")
    void redisAgreesWithMemoryOnAClockThatStepsBack(Algorithm algorithm) {
        long seed = Long.getLong("sluice.seed", System.nanoTime());
        for (Server server : servers) {
            Random random = new Random(seed);
            for (int timeline = 0; timeline < 8; timeline++) {
                try {
                    replay(new Pair(server), random, algorithm);
                } catch (AssertionError e) {
                    throw new AssertionError("seed " + seed + " (-Dsluice.seed=" + seed + "), timeline " + timeline
                            + ": " + e.getMessage(), e);
                }
            }
        }
    }

    static Stream<Arguments> everyAlgorithmAndClock() {
        return Arrays.stream(Algorithm.values())
                .flatMap(a -> Arrays.stream(EngineDifferential.Clock.values()).map(c -> Arguments.of(a, c)));
    }

    /**
     * The engine on Redis answers as the engine on memory, its denial cache on as off (issue 30): the timelines of
     * {@link EngineDifferential} (as {@code DenialCacheDifferentialTest} runs them on memory), every algorithm, mixed
     * costs, several rules per request, leases released, the programmatic API, on a clock that moves forwards or also
     * steps back by up to a minute. Each engine on Redis has keys of its own (a prefix).
     */
    @ParameterizedTest
    @MethodSource("everyAlgorithmAndClock")
    void theEngineOnRedisAnswersAsOnMemoryWithTheDenialCacheOnAndOff(Algorithm algorithm,
            EngineDifferential.Clock clock) {
        long seed = EngineDifferential.seed();
        for (Server server : servers) {
            ManualTimeSource time = new ManualTimeSource();
            try (Engine reference = Engine.builder().timeSource(time).denialCacheSize(0).build();
                    Engine cached = onRedis(server, time).build();
                    Engine uncached = onRedis(server, time).denialCacheSize(0).build()) {
                EngineDifferential timelines = new EngineDifferential(seed, time, reference, List.of(
                        new EngineDifferential.Candidate("Redis " + server.version() + ", denial cache on", cached),
                        new EngineDifferential.Candidate("Redis " + server.version() + ", denial cache off", uncached)));
                for (int timeline = 0; timeline < 4; timeline++) {
                    timelines.replay(algorithm, "t" + timeline, 250, clock);
                }
                assertThat(timelines.denials()).as("denials among %d requests", timelines.requests()).isPositive();
            }
        }
    }

    private static Engine.Builder onRedis(Server server, ManualTimeSource time) {
        return Engine.builder().timeSource(time).store(RedisStore.builder().url(server.url()).applicationTime(true)
                .prefix("engine-" + System.nanoTime()).timeout(Duration.ofSeconds(5)).build());
    }

    /**
     * A step back of more than a minute (issue 30: the differences left with the denial cache off, on day-long
     * policies). Both stores keep a state for a minute after it stops mattering, so that a step back of up to a minute
     * finds it; memory by its clock, Redis by its own (a key's time to live), which a manual clock does not move: here
     * Redis still holds every state when memory has dropped one. After a longer step back onto a state's lifetime
     * they differ, and only so: memory answers as a store that never saw the key (as Redis would once the key's time
     * to live had passed by its clock). Day-long policies, whose states matter for hours, are where steps back of
     * minutes to a day land on one. Each difference is held to that bound, then the key reset in both stores so that
     * the timeline goes on comparing.
     */
    @Test
    void aStepBackOfMoreThanAMinuteDiffersOnlyWhereMemoryHasDroppedTheState() {
        long seed = EngineDifferential.seed();
        for (Server server : servers) {
            Random random = new Random(seed);
            int differences = 0;
            for (Algorithm algorithm : RedisDifferentialIT.STORED) {
                for (int timeline = 0; timeline < 4; timeline++) {
                    differences += stepBackByUpToADay(server, random, algorithm, seed + " (-Dsluice.seed=" + seed
                            + "), " + algorithm.id() + " timeline " + timeline);
                }
            }
            System.out.println("Redis " + server.version() + ": " + differences + " answers after a step back of more"
                    + " than a minute found in memory a key it had dropped");
        }
    }

    /** @return how many answers differed, each where memory dropped the state and Redis had not */
    private static int stepBackByUpToADay(Server server, Random random, Algorithm algorithm, String seed) {
        long limit = 1 + random.nextInt(40);
        Policy p = algorithm == Algorithm.CONCURRENCY ? Policy.parse(limit + " concurrent lease 1d")
                : Policy.of(algorithm, limit, Duration.ofDays(1));
        Pair both = new Pair(server);
        long now = ManualTimeSource.START_MICROS;
        long latest = now;
        int differences = 0;
        for (int step = 0; step < 150; step++) {
            now = random.nextInt(6) == 0 ? latest - 1 - (long) (random.nextDouble() * p.periodMicros())
                    : now + (long) (random.nextDouble() * 2 * p.periodMicros() / limit);
            latest = Math.max(latest, now);
            both.clock.set(now);
            String key = random.nextInt(5) == 0 ? "new-" + step : "k" + random.nextInt(3);
            List<Check> checks = List.of(new Check(both.rule, key, p, 1 + random.nextInt(3), false,
                    algorithm == Algorithm.CONCURRENCY ? "lease-" + step : null));
            Outcome memory = both.memory.evaluate(checks, now).get(0);
            Outcome redis = server.store().evaluate(checks, now).get(0);
            if (memory.equals(redis)) {
                continue;
            }
            differences++;
            Outcome fresh = MemoryStore.builder().timeSource(both.clock).build().evaluate(checks, now).get(0);
            String where = "Redis " + server.version() + ", seed " + seed + ", step " + step + ", " + p + " key " + key
                    + ", " + (latest - now) + " µs behind the latest time: memory " + memory + ", Redis " + redis;
            assertThat(latest - now).as(where).isGreaterThan(MINUTE);
            assertThat(memory).as("memory answers as for a key it never saw: " + where).isEqualTo(fresh);
            both.memory.reset(both.rule, key);
            server.store().reset(both.rule, key);
        }
        return differences;
    }

    private static void replay(Pair both, Random random, Algorithm main) {
        List<Policy> policies = new ArrayList<>(List.of(RedisDifferentialIT.policy(random, main)));
        if (random.nextBoolean()) {
            policies.add(RedisDifferentialIT.policy(random, RedisDifferentialIT.STORED.get(random.nextInt(RedisDifferentialIT.STORED.size()))));
        }
        long period = policies.get(0).periodMicros();
        long now = ManualTimeSource.START_MICROS + random.nextInt(1_000_000_000);
        long latest = now;
        List<List<Lease>> held = new ArrayList<>();
        for (int step = 0; step < 300; step++) {
            now = next(random, now, latest, period);
            latest = Math.max(latest, now);
            if (!held.isEmpty() && random.nextInt(4) == 0) {
                both.release(now, held.remove(random.nextInt(held.size())));
                continue;
            }
            String key = random.nextInt(5) == 0 ? "new-" + step : "k" + random.nextInt(3);
            List<Check> checks = new ArrayList<>();
            for (int r = 0; r < policies.size(); r++) {
                Policy p = policies.get(r);
                String lease = p.algorithm() == Algorithm.CONCURRENCY ? "lease-" + step : null;
                checks.add(new Check(both.rule + "-" + r, key, p, RedisDifferentialIT.cost(random, p), false, lease));
            }
            List<Outcome> outcomes = both.evaluate(checks, now);
            List<Lease> leases = new ArrayList<>();
            for (int i = 0; i < checks.size(); i++) {
                Check c = checks.get(i);
                if (c.leaseId() != null && c.cost() > 0 && outcomes.stream().allMatch(Outcome::allowed)) {
                    leases.add(new Lease(c.rule(), c.key(), c.policy(), c.leaseId()));
                }
            }
            if (!leases.isEmpty()) {
                held.add(leases);
            }
        }
    }

    /** The clock's next time: forwards (nothing, a little, up to three periods) or back by up to a minute. */
    private static long next(Random random, long now, long latest, long period) {
        return EngineDifferential.next(random, now, latest, period);
    }
}
