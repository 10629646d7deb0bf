package io.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.testing.Await;
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
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.params.XReadGroupParams;
import redis.clients.jedis.resps.StreamEntry;

/**
 * {@link AdmissionQueue} against a real redis-server, on the real clock: two nodes (each its own queue client and its
 * own engine on its own {@link RedisStore}, the pace limiter shared through Redis), producers on both, three workers.
 * Waits are on latches and conditions with deadlines; the producers' parks are their retry hints, as a client's would
 * be. The pace is checked on the instants the store admitted each permit at: the engines pass their time to Redis
 * ({@link RedisStore.Builder#applicationTime}), so those are known exactly.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AdmissionQueueIT {

    private static final int BOUND = 10;
    private static final int LIMIT = 20;
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
    /** A sliding log: no more than 20 admissions in any second, exactly. */
    private static final Policy PACE = Policy.parse(LIMIT + "/1s min-interval 0s");
    private static final Duration CLAIM = Duration.ofSeconds(1);
    private static final String GROUP = "workers";

    /** A handler's call: the entry, the worker, when it began (System.nanoTime). */
    private record Handled(String id, String worker, long at) {}

    @org.junit.jupiter.api.BeforeEach
    void forget() {
        PacedStore.PERMITS.clear();
    }

    @Test
    void twoNodesAndThreeWorkersKeepTheBoundAndThePaceAndProcessEveryEntryAtLeastOnce() throws Exception {
        int producersPerNode = 2;
        int acceptedPerProducer = 10;
        int crashedEntries = 3;
        try (RedisProcess redis = RedisProcess.start();
                Node a = new Node(redis, "jobs");
                Node b = new Node(redis, "jobs");
                RedisClient raw = RedisClient.create(redis.url())) {
            // a worker that reads three entries and dies before acknowledging them
            List<String> crashed = new ArrayList<>();
            for (int i = 0; i < crashedEntries; i++) {
                AdmissionQueue.Admission admission = a.queue.offer("crashed-" + i);
                assertThat(admission.accepted()).isTrue();
                crashed.add(admission.id());
            }
            raw.xgroupCreate(a.queue.streamKey(), GROUP, new StreamEntryID(0, 0), true);
            long crashedReadFrom = System.nanoTime();
            List<Map.Entry<String, List<StreamEntry>>> read = raw.xreadGroup(GROUP, "crashed",
                    XReadGroupParams.xReadGroupParams().count(crashedEntries),
                    Map.of(a.queue.streamKey(), StreamEntryID.XREADGROUP_UNDELIVERED_ENTRY));
            assertThat(read.get(0).getValue()).hasSize(crashedEntries);

            int total = crashedEntries + 2 * producersPerNode * acceptedPerProducer;
            Queue<Handled> handled = new ConcurrentLinkedQueue<>();
            Set<String> seen = java.util.concurrent.ConcurrentHashMap.newKeySet();
            CountDownLatch everyEntry = new CountDownLatch(total);
            AdmissionQueue.Handler handler = entry -> {
                handled.add(new Handled(entry.id(), Thread.currentThread().getName(), System.nanoTime()));
                if (seen.add(entry.id())) {
                    everyEntry.countDown();
                }
            };
            List<AdmissionQueue.Worker> workers = List.of(a.queue.consume(GROUP, "a-1", handler),
                    a.queue.consume(GROUP, "a-2", handler), b.queue.consume(GROUP, "b-1", handler));

            // the stream sampled while producers on both nodes offer as fast as their retry hints let them
            AtomicBoolean sampling = new AtomicBoolean(true);
            AtomicLong longest = new AtomicLong();
            AtomicLong samples = new AtomicLong();
            Thread sampler = new Thread(() -> {
                while (sampling.get()) {
                    longest.accumulateAndGet(raw.xlen(a.queue.streamKey()), Math::max);
                    samples.incrementAndGet();
                }
            });
            sampler.start();
            Queue<AdmissionQueue.Admission> answers = new ConcurrentLinkedQueue<>();
            ExecutorService producers = Executors.newFixedThreadPool(2 * producersPerNode);
            List<Future<?>> done = new ArrayList<>();
            for (Node node : List.of(a, b)) {
                for (int p = 0; p < producersPerNode; p++) {
                    String producer = node + "-" + p;
                    done.add(producers.submit(() -> {
                        int accepted = 0;
                        for (int i = 0; accepted < acceptedPerProducer; i++) {
                            AdmissionQueue.Admission admission = node.queue.offer(producer + "-" + i);
                            answers.add(admission);
                            if (admission.accepted()) {
                                accepted++;
                            } else {
                                LockSupport.parkNanos(Math.min(admission.retryAfter().toNanos(), SECOND / 5));
                            }
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> f : done) {
                f.get(30, TimeUnit.SECONDS);
            }
            producers.shutdown();
            assertThat(everyEntry.await(30, TimeUnit.SECONDS)).as("every admitted entry handled").isTrue();
            Await.until("every entry recorded processed", Duration.ofSeconds(10), () -> a.queue.processed() == total);
            sampling.set(false);
            sampler.join();

            // the bound: the script's answers and the samples
            List<AdmissionQueue.Admission> accepted = answers.stream().filter(AdmissionQueue.Admission::accepted)
                    .toList();
            List<AdmissionQueue.Admission> refused = answers.stream().filter(x -> !x.accepted()).toList();
            assertThat(accepted).hasSize(total - crashedEntries);
            assertThat(accepted).allSatisfy(x -> assertThat(x.length()).isBetween(1L, (long) BOUND));
            assertThat(refused).as("the producers outpace the workers: the stream fills").isNotEmpty();
            assertThat(refused).allSatisfy(x -> {
                assertThat(x.length()).isEqualTo(BOUND);
                assertThat(x.retryAfter()).isGreaterThanOrEqualTo(Duration.ofMillis(1_000 / LIMIT));
            });
            assertThat(samples.get()).isPositive();
            assertThat(longest.get()).as("the stream's length, sampled").isLessThanOrEqualTo(BOUND);

            // every entry processed at least once, its outcome recorded once
            Set<String> ids = new HashSet<>(crashed);
            accepted.forEach(x -> ids.add(x.id()));
            assertThat(ids).hasSize(total);
            assertThat(seen).containsExactlyInAnyOrderElementsOf(ids);
            for (String id : ids) {
                AdmissionQueue.Outcome outcome = b.queue.outcome(id).orElseThrow();
                assertThat(outcome.status()).as(id).isEqualTo(AdmissionQueue.Status.DONE);
                assertThat(outcome.worker()).isIn("a-1", "a-2", "b-1");
                assertThat(outcome.at()).isNotNull();
            }
            assertThat(a.queue.processed()).isEqualTo(total);
            assertThat(a.queue.pending()).isZero();

            // the dead worker's entries: claimed by the others, after the claim timeout
            for (String id : crashed) {
                AdmissionQueue.Outcome outcome = a.queue.outcome(id).orElseThrow();
                assertThat(outcome.deliveries()).as("delivered to the dead worker, then claimed").isEqualTo(2);
                long first = handled.stream().filter(h -> h.id().equals(id)).mapToLong(Handled::at).min()
                        .orElseThrow();
                assertThat(first - crashedReadFrom).as("claimed only after the claim timeout")
                        .isGreaterThanOrEqualTo(CLAIM.toNanos());
            }

            // the pace: each handler call took one permit of the fleet's limiter, idle workers none, and no second
            // of the instants the store admitted them at (application time: known exactly) holds more than the limit
            List<Long> permits = PacedStore.PERMITS.stream().sorted().toList();
            assertThat(permits).as("one permit per handler call").hasSize(handled.size());
            int most = 0;
            for (int i = 0; i < permits.size(); i++) {
                int j = i;
                while (j < permits.size() && permits.get(j) - permits.get(i) < SECOND / 1_000) {
                    j++;
                }
                most = Math.max(most, j - i);
            }
            assertThat(most).as("entries processed within one second").isLessThanOrEqualTo(LIMIT);
            assertThat(handled).as("the load spans seconds: the pace binds").hasSizeGreaterThan(2 * LIMIT);
            assertThat(workers).allSatisfy(w -> assertThat(w.running()).isTrue());
        }
    }

    @Test
    void aWorkerStoppedWithAnEntryInHandLeavesItToAnotherAfterTheClaimTimeout() throws Exception {
        try (RedisProcess redis = RedisProcess.start(); Node node = new Node(redis, "hung")) {
            CountDownLatch inHand = new CountDownLatch(1);
            CountDownLatch never = new CountDownLatch(1);
            AtomicLong readAt = new AtomicLong();
            QueueWorker doomed = (QueueWorker) node.queue.consume(GROUP, "doomed", entry -> {
                readAt.set(System.nanoTime());
                inHand.countDown();
                never.await();
            });
            String id = node.queue.offer("job").id();
            assertThat(inHand.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(node.queue.outcome(id).orElseThrow().status()).isEqualTo(AdmissionQueue.Status.PROCESSING);

            doomed.close(Duration.ZERO);                // interrupted in its handler: dies without acknowledging
            assertThat(doomed.running()).isFalse();
            AdmissionQueue.Outcome stranded = node.queue.outcome(id).orElseThrow();
            assertThat(stranded.status()).isEqualTo(AdmissionQueue.Status.PROCESSING);
            assertThat(stranded.worker()).isEqualTo("doomed");

            CountDownLatch rescued = new CountDownLatch(1);
            AtomicLong rescuedAt = new AtomicLong();
            node.queue.consume(GROUP, "rescuer", entry -> {
                assertThat(entry.reclaimed()).isTrue();
                rescuedAt.set(System.nanoTime());
                rescued.countDown();
            });
            assertThat(rescued.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(rescuedAt.get() - readAt.get()).isGreaterThanOrEqualTo(CLAIM.toNanos());
            Await.until("the rescued entry recorded processed", Duration.ofSeconds(5), () -> node.queue.processed() == 1);
            AdmissionQueue.Outcome outcome = node.queue.outcome(id).orElseThrow();
            assertThat(outcome.status()).isEqualTo(AdmissionQueue.Status.DONE);
            assertThat(outcome.worker()).isEqualTo("rescuer");
            assertThat(outcome.deliveries()).isEqualTo(2);
        }
    }

    @Test
    void aFullStreamRefusesWithARetryHintAndFailuresAreRecordedWithTheirError() throws Exception {
        try (RedisProcess redis = RedisProcess.start(); Node node = new Node(redis, "small", 2);
                RedisClient raw = RedisClient.create(redis.url())) {
            AdmissionQueue.Admission first = node.queue.offer("ok");
            AdmissionQueue.Admission second = node.queue.offer("boom");
            AdmissionQueue.Admission third = node.queue.offer("late");
            assertThat(first.accepted()).isTrue();
            assertThat(second.accepted()).isTrue();
            assertThat(second.length()).isEqualTo(2);
            assertThat(third.accepted()).isFalse();
            assertThat(third.id()).isNull();
            assertThat(third.length()).isEqualTo(2);
            assertThat(third.retryAfter()).as("one place, at 20 a second").isEqualTo(Duration.ofMillis(50));
            assertThat(node.queue.pending()).isEqualTo(2);
            assertThat(node.queue.outcome(first.id()).orElseThrow().status()).isEqualTo(AdmissionQueue.Status.QUEUED);
            assertThat(node.queue.outcome("1-1")).isEmpty();
            assertThat(node.queue.outcome("not an id")).isEmpty();

            CountDownLatch both = new CountDownLatch(2);
            try (AdmissionQueue.Worker worker = node.queue.consume(GROUP, "w", entry -> {
                both.countDown();
                if (entry.payload().equals("boom")) {
                    throw new IllegalStateException("the partner said no");
                }
            })) {
                assertThat(both.await(10, TimeUnit.SECONDS)).isTrue();
                // the worker counts an entry once the script has recorded it: wait on its count, then Redis's
                Await.until("both entries finished by the worker", Duration.ofSeconds(5), () -> worker.finished() == 2);
                assertThat(node.queue.processed()).isEqualTo(2);
            }
            assertThat(node.queue.outcome(first.id()).orElseThrow().status()).isEqualTo(AdmissionQueue.Status.DONE);
            AdmissionQueue.Outcome failed = node.queue.outcome(second.id()).orElseThrow();
            assertThat(failed.status()).isEqualTo(AdmissionQueue.Status.FAILED);
            assertThat(failed.error()).isEqualTo("java.lang.IllegalStateException: the partner said no");
            assertThat(node.queue.pending()).isZero();
            assertThat(node.queue.offer("again").accepted()).as("places freed").isTrue();
            List<StreamEntry> results = raw.xrange(node.queue.streamKey() + ":results", (StreamEntryID) null,
                    (StreamEntryID) null);
            assertThat(results).extracting(e -> e.getFields().get("status")).containsExactlyInAnyOrder("DONE",
                    "FAILED");
            assertThat(raw.pttl(node.queue.streamKey() + ":outcome:" + first.id())).isPositive();
        }
    }

    @Test
    void anEntryDeliveredMoreThanMaxDeliveriesIsRecordedFailedWithoutRunningTheHandler() throws Exception {
        try (RedisProcess redis = RedisProcess.start(); Node node = new Node(redis, "poison", BOUND, 1);
                RedisClient raw = RedisClient.create(redis.url())) {
            assertThat(node.queue.maxDeliveries()).isEqualTo(1);
            String poison = node.queue.offer("poison").id();
            // a consumer reads it and dies without acknowledging it: its first delivery
            raw.xgroupCreate(node.queue.streamKey(), GROUP, new StreamEntryID(0, 0), true);
            List<Map.Entry<String, List<StreamEntry>>> read = raw.xreadGroup(GROUP, "crashed",
                    XReadGroupParams.xReadGroupParams().count(1),
                    Map.of(node.queue.streamKey(), StreamEntryID.XREADGROUP_UNDELIVERED_ENTRY));
            assertThat(read.get(0).getValue()).extracting(e -> e.getID().toString()).containsExactly(poison);
            String fine = node.queue.offer("fine").id();

            Queue<String> handled = new ConcurrentLinkedQueue<>();
            try (AdmissionQueue.Worker worker = node.queue.consume(GROUP, "rescuer",
                    entry -> handled.add(entry.id()))) {
                // the worker counts an outcome once its script has answered: wait on its count, then Redis's
                Await.until("both entries finished by the worker", Duration.ofSeconds(10), () -> worker.finished() == 2);
                assertThat(node.queue.processed()).isEqualTo(2);
            }
            assertThat(handled).as("the handler ran for the fresh entry only").containsExactly(fine);
            assertThat(PacedStore.PERMITS).as("no permit for the entry given up on").hasSize(1);
            AdmissionQueue.Outcome gaveUp = node.queue.outcome(poison).orElseThrow();
            assertThat(gaveUp.status()).isEqualTo(AdmissionQueue.Status.FAILED);
            assertThat(gaveUp.error()).isEqualTo("gave up after 2 deliveries");
            assertThat(gaveUp.worker()).isEqualTo("rescuer");
            assertThat(gaveUp.deliveries()).isEqualTo(2);
            assertThat(node.queue.outcome(fine).orElseThrow().status()).isEqualTo(AdmissionQueue.Status.DONE);
            assertThat(node.queue.pending()).as("acknowledged and deleted").isZero();
            assertThat(raw.xpending(node.queue.streamKey(), GROUP).getTotal()).isZero();
            List<StreamEntry> results = raw.xrange(node.queue.streamKey() + ":results", (StreamEntryID) null,
                    (StreamEntryID) null);
            assertThat(results).filteredOn(e -> e.getFields().get("id").equals(poison)).singleElement()
                    .satisfies(e -> {
                        assertThat(e.getFields().get("status")).isEqualTo("FAILED");
                        assertThat(e.getFields().get("error")).isEqualTo("gave up after 2 deliveries");
                    });
        }
    }

    /** Waits for a condition, checking it every few milliseconds, until the deadline; then asserts it. */
    /** The pace's store, which records the instant of every permit it admits (microseconds, application time). */
    private static final class PacedStore extends DelegatingStore {
        static final Queue<Long> PERMITS = new ConcurrentLinkedQueue<>();

        PacedStore(Store store) {
            super(store);
        }

        @Override
        public List<Outcome> evaluate(List<Check> checks, long nowMicros) {
            return record(checks, nowMicros, store.evaluate(checks, nowMicros));
        }

        @Override
        public List<Outcome> evaluate(List<Check> checks, long nowMicros, TimeSource clock) {
            return record(checks, nowMicros, store.evaluate(checks, nowMicros, clock));
        }

        private static List<Outcome> record(List<Check> checks, long nowMicros, List<Outcome> outcomes) {
            for (int i = 0; i < outcomes.size(); i++) {
                if (outcomes.get(i).allowed() && checks.get(i).cost() > 0) {
                    PERMITS.add(nowMicros);
                }
            }
            return outcomes;
        }
    }

    /** One node: its engine (on its own RedisStore) and its queue (on its own client). */
    private static final class Node implements AutoCloseable {
        private static final AtomicLong NUMBER = new AtomicLong();
        final Engine engine;
        final AdmissionQueue queue;
        final String name = "node-" + NUMBER.incrementAndGet();

        Node(RedisProcess redis, String queueName) {
            this(redis, queueName, BOUND);
        }

        Node(RedisProcess redis, String queueName, int bound) {
            this(redis, queueName, bound, AdmissionQueue.DEFAULT_MAX_DELIVERIES);
        }

        Node(RedisProcess redis, String queueName, int bound, int maxDeliveries) {
            RedisStore store = RedisStore.builder().url(redis.url()).applicationTime(true)
                    .timeout(Duration.ofSeconds(2)).build();
            engine = Engine.builder().store(new PacedStore(store)).build();
            Limiter pace = engine.limiter("queue-pace", PACE);
            queue = AdmissionQueue.builder(queueName).url(redis.url()).bound(bound).claimTimeout(CLAIM).pace(pace)
                    .maxDeliveries(maxDeliveries).build();
        }

        @Override
        public void close() {
            queue.close();
            engine.close();
        }

        @Override
        public String toString() {
            return name;
        }
    }
}
