package io.sluice.filter;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every capability under every Redis fault: each cell runs an application (embedded Jetty, the filter on the system
 * clock, so that the circuit breaker cools down and probes as in production) on a real redis-server of its own, sends
 * load through a fault and its heal, and asserts that no request got a 5xx but the 503s of rules configured to
 * {@code deny} while calls fail, that no answer took 3 s, that limits are exact again once Redis is back (and stay so),
 * that no job accepted with a 202 was lost (but what an empty Redis loses by design), and that the operator's settings
 * are in force again. It prints how long each cell took to recover once Redis answered, as
 * {@code fault-matrix: <capability> x <fault>: recovered in N ms, ...}; docs/failures.md has the figures.
 *
 * <p>Capabilities ({@link Capability}): {@link RulesOnRedis rules on Redis} (one rule per failure mode),
 * {@link QueueOnRedis the admission queue} (enqueue mode), {@link ControlPlaneOnRedis the control plane and overrides}
 * (two nodes), {@link LeasedOnRedis leased permits}, {@link CoalescedOnRedis coalesced calls}. Faults ({@link Fault}):
 * killed and restarted from an append-only file, restarted empty, {@code CLIENT PAUSE}, {@code SCRIPT FLUSH} with
 * {@code FUNCTION FLUSH}, out of memory, down at start-up. A cell: Redis started for the fault (or not, for down at
 * start-up); the capability built on it, then arranged (settings written, jobs queued); load; the fault; more load
 * (and, while every call fails, how the capability answers: {@link Capability#duringFault()}); the heal; the wait for
 * exact behaviour, timed; more load; for down at start-up, arranged now; then what held ({@link Capability#verify}).
 *
 * <p>This class is the one place for these 30 cells: the cells {@code RedisFailureIT} ran (killed under load, script
 * flushes under load, the local share while Redis is down) and {@code RedisOutageIT}'s out-of-memory test are here,
 * with their assertions. Other tests go deeper into some cells, on what a matrix does not measure:
 * <ul>
 * <li>rules x {@code CLIENT PAUSE}: {@code RedisFailureIT} (each request within the time budget during a 10 s pause),
 * {@code RedisOutageIT} (hung with {@code SIGSTOP}: every answer timed, the breaker's probes counted);
 * <li>rules x restarted empty: {@code RedisOutageIT} (restarted at once, with a pool of connections to the old
 * server: not one request falls back);
 * <li>rules x out of memory: {@code RedisOutageIT} (writes refused now and then, each logged with its cause);
 * <li>the admission queue: {@code AdmissionQueueFaultsIT} in sluice-redis (the queue alone: restarted from a snapshot
 * older than its group, closed while Redis hangs), {@code EnqueueRedisDownIT} (Redis down at start-up, the rule in
 * memory);
 * <li>concurrency leases (not leased permits): {@code RedisOutageIT} (restarted and hung while leases are held);
 * <li>coalesced calls: {@code CoalescingIT} in sluice-redis (a failed batch answers every request it carried).
 * </ul>
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class FaultMatrixIT {

    /** Requests of the load before the fault, during it and after recovery, each. */
    private static final int TRAFFIC = 30;
    /** The slowest answer allowed: many times a Redis call's 50 ms budget, far below a hang. */
    private static final long SLOWEST_MILLIS = 3_000;

    /** The capabilities, as the report names them. */
    enum Kind {
        RULES("rules on Redis", RulesOnRedis::new),
        QUEUE("admission queue", QueueOnRedis::new),
        CONTROL_PLANE("control plane and overrides", ControlPlaneOnRedis::new),
        LEASED("leased permits", LeasedOnRedis::new),
        COALESCED("coalesced calls", CoalescedOnRedis::new);

        private final String title;
        private final Capability.Opening opening;

        Kind(String title, Capability.Opening opening) {
            this.title = title;
            this.opening = opening;
        }

        @Override
        public String toString() {
            return title;
        }
    }

    static Stream<Arguments> cells() {
        return Arrays.stream(Kind.values()).flatMap(k -> Arrays.stream(Fault.values()).map(f -> Arguments.of(k, f)));
    }

    @ParameterizedTest(name = "{0} x {1}")
    @MethodSource("cells")
    void survives(Kind capability, Fault fault) throws Exception {
        try (FaultyRedis redis = FaultyRedis.prepare(fault); Capability app = capability.opening.open(redis)) {
            if (fault.upAtStart()) {
                app.arrange();
            }
            HttpLoad load = app.load();
            long healStart;
            long recoveredMillis;
            try (load) {
                load.awaitMore(TRAFFIC);
                fault.inject(redis, load);
                load.awaitMore(TRAFFIC);
                if (fault.failsEveryCall()) {
                    app.duringFault();
                }
                healStart = System.currentTimeMillis();
                fault.heal(redis);
                long healed = System.nanoTime();
                app.awaitRecovered(fault);
                recoveredMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - healed);
                load.awaitMore(TRAFFIC);
            }
            if (!fault.upAtStart()) {
                app.arrange();
            }
            Capability.Held held = app.verify(fault, load, healStart);
            long failed = load.statuses.entrySet().stream().filter(e -> e.getKey() >= 500 || e.getKey() < 0)
                    .mapToLong(e -> e.getValue().get()).sum();
            System.out.printf("fault-matrix: %s x %s: recovered in %d ms, %d requests, %d 5xx beyond deny,"
                    + " slowest %d ms; %s%n", capability, fault, recoveredMillis, load.sent.get(),
                    failed - held.deniedByRule(), load.slowestMillis.get(), held.details());
            assertThat(failed - held.deniedByRule()).as("5xx or no answer, beyond deny rules' 503: %s",
                    load.statuses).isZero();
            assertThat(load.slowestMillis.get()).as("slowest answer (ms)").isLessThan(SLOWEST_MILLIS);
        }
    }
}
