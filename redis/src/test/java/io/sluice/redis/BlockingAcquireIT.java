package io.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.Engine;
import io.sluice.core.Limiter;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import io.sluice.core.store.Check;
import io.sluice.core.store.DelegatingStore;
import io.sluice.core.store.Store;
import io.sluice.core.testing.RedisProcess;
import io.sluice.core.time.TimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link Limiter#acquire} against a real redis-server, on the real clock: two engines (two nodes, each with its own
 * {@link RedisStore}), four threads each, every thread acquiring one key ten times, under a sliding log of 20 per
 * second. Every acquire returns, the whole run takes as long as the limit says (80 permits: 20 at once, then 20 a
 * second) and no second holds more than 20 admissions.
 *
 * <p>Every store call is recorded with the time it was decided at: with application time, the instant the store
 * decided at exactly (the engine's clock, passed to Redis, or the log's newest entry where a request that read the
 * clock earlier comes after it: the instant its reset tells); with Redis {@code TIME} (the default), the local interval
 * the call ran in, which holds Redis's instant, so that the check of a second is then sound but looser by a round
 * trip: it fails only where 21 admissions certainly fell within one second.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BlockingAcquireIT {

    private static final int NODES = 2;
    private static final int THREADS_PER_NODE = 4;
    private static final int ACQUIRES_PER_THREAD = 10;
    private static final int LIMIT = 20;
    private static final long SECOND = 1_000_000;
    private static final Policy POLICY = Policy.parse(LIMIT + "/1s min-interval 0s");     // sliding log

    /** An admission: the instant it was decided at lies within {@code [from, to]}, in microseconds. */
    private record Admission(long from, long to) {}

    @ParameterizedTest(name = "application time: {0}")
    @ValueSource(booleans = {true, false})
    void twoEnginesAcquiringOneKeyNeverPassTheLimitAndEveryAcquireSucceeds(boolean applicationTime) throws Exception {
        Queue<Admission> admitted = new ConcurrentLinkedQueue<>();
        long tookMicros;
        try (RedisProcess redis = RedisProcess.start()) {
            tookMicros = acquireEverywhere(redis.url(), applicationTime, admitted);
        }
        int total = NODES * THREADS_PER_NODE * ACQUIRES_PER_THREAD;
        long needs = (total - LIMIT) * SECOND / LIMIT;
        assertThat(admitted).as("one admission per acquire, no more").hasSize(total);
        assertThat(tookMicros).as("20 at once, then 20 a second").isGreaterThanOrEqualTo(needs);
        assertThat(tookMicros).as("and not much longer").isLessThan(needs + 5 * SECOND);
        int most = mostCertainlyInOneSecond(new ArrayList<>(admitted));
        assertThat(most).as("admissions within one second").isLessThanOrEqualTo(LIMIT);
        if (applicationTime) {
            assertThat(most).as("every instant known: the limit is reached, exactly").isEqualTo(LIMIT);
        }
    }

    /** @return how long, in microseconds, until every thread of every engine had all its permits */
    private static long acquireEverywhere(String url, boolean applicationTime, Queue<Admission> admitted)
            throws Exception {
        List<Engine> engines = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(NODES * THREADS_PER_NODE);
        try {
            for (int n = 0; n < NODES; n++) {
                RedisStore redis = RedisStore.builder().url(url).applicationTime(applicationTime)
                        .poolSize(THREADS_PER_NODE).timeout(Duration.ofSeconds(5)).build();
                engines.add(Engine.builder().store(new Recording(redis, applicationTime, admitted)).build());
            }
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Duration>> results = new ArrayList<>();
            for (Engine engine : engines) {
                Limiter partner = engine.limiter("partner", POLICY);
                for (int t = 0; t < THREADS_PER_NODE; t++) {
                    results.add(threads.submit(() -> {
                        start.await();
                        Duration waited = Duration.ZERO;
                        for (int i = 0; i < ACQUIRES_PER_THREAD; i++) {
                            waited = waited.plus(partner.acquire("the-key"));
                        }
                        return waited;
                    }));
                }
            }
            long began = System.nanoTime();
            start.countDown();
            for (Future<Duration> result : results) {
                assertThat(result.get(30, TimeUnit.SECONDS)).as("every acquire returns").isNotNull();
            }
            return (System.nanoTime() - began) / 1_000;
        } finally {
            threads.shutdownNow();
            engines.forEach(Engine::close);
        }
    }

    /**
     * @return the most admissions that certainly fell within one second: for each admission's earliest instant
     *     {@code from}, the admissions that came no earlier, the earliest-ending first, as many as end less than a
     *     second after it (exact when every admission's instant is known)
     */
    private static int mostCertainlyInOneSecond(List<Admission> admissions) {
        int most = 0;
        for (Admission first : admissions) {
            long within = admissions.stream()
                    .filter(a -> a.from() >= first.from() && a.to() < first.from() + SECOND)
                    .count();
            most = Math.max(most, (int) within);
        }
        return most;
    }

    /** A store that records the admissions of the store it forwards to. */
    private static final class Recording extends DelegatingStore {
        private final boolean applicationTime;
        private final Queue<Admission> admitted;

        Recording(Store store, boolean applicationTime, Queue<Admission> admitted) {
            super(store);
            this.applicationTime = applicationTime;
            this.admitted = admitted;
        }

        @Override
        public List<Outcome> evaluate(List<Check> checks, long nowMicros) {
            return record(checks, nowMicros, () -> store.evaluate(checks, nowMicros));
        }

        @Override
        public List<Outcome> evaluate(List<Check> checks, long nowMicros, TimeSource clock) {
            return record(checks, nowMicros, () -> store.evaluate(checks, nowMicros, clock));
        }

        private List<Outcome> record(List<Check> checks, long nowMicros, Supplier<List<Outcome>> call) {
            long before = System.nanoTime() / 1_000;
            List<Outcome> outcomes = call.get();
            long after = System.nanoTime() / 1_000;
            for (int i = 0; i < outcomes.size(); i++) {
                Outcome o = outcomes.get(i);
                if (o.allowed() && checks.get(i).cost() > 0) {
                    // the log's instant: the time passed, or its newest entry's where that is later (another node's
                    // clock ran ahead, or its request was decided first); an admission resets a period after it
                    long at = nowMicros + o.resetAfterMicros() - SECOND;
                    admitted.add(applicationTime ? new Admission(at, at) : new Admission(before, after));
                }
            }
            return outcomes;
        }
    }
}
