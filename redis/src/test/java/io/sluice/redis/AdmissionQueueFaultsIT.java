package io.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.Engine;
import io.sluice.core.policy.Policy;
import io.sluice.core.store.StoreException;
import io.sluice.core.testing.Await;
import io.sluice.core.testing.LogCapture;
import io.sluice.core.testing.RedisProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.resps.StreamGroupInfo;

/**
 * {@link AdmissionQueue} under Redis faults, against a real redis-server on the real clock: restarted with an empty
 * dataset while workers run, down when the workers start, restarted from a snapshot taken before the workers' group
 * existed, killed and restarted from its append-only file, and hung ({@code SIGSTOP}) while the queue closes. The jobs
 * offered are processed to {@code DONE} in each, and the time the queue took once Redis was back is printed. Producers
 * offer as a client would: a refused or failed offer is offered again, except where the test says it must not fail.
 * Each worker logs an outage once, and the group's loss once.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AdmissionQueueFaultsIT {

    private static final Duration CLAIM = Duration.ofSeconds(1);
    private static final String GROUP = "workers";
    /**
     * The longest the tests wait for the queue once Redis answers again: the longest pause between a worker's attempts
     * (2 s), a claim timeout, and slack for a loaded machine. The time it took is printed.
     */
    private static final Duration RECOVERY = Duration.ofSeconds(20);

    @Test
    void afterAnEmptyRestartTheWorkersCreateTheirGroupAgainAndProcessNewJobs() throws Exception {
        try (RedisProcess redis = RedisProcess.start(); Node node = new Node(redis.url(), "emptied");
                LogCapture log = new LogCapture(AdmissionQueue.class.getName())) {
            Set<String> handled = ConcurrentHashMap.newKeySet();
            node.queue.consume(GROUP, "w-1", entry -> handled.add(entry.id()));
            node.queue.consume(GROUP, "w-2", entry -> handled.add(entry.id()));
            String before = offered(node.queue, "before");
            awaitDone(node.queue, List.of(before));

            redis.restart();                                    // killed, and started again on its port, empty
            long restarted = System.nanoTime();
            AdmissionQueue.Admission first = node.queue.offer("after-0");
            assertThat(first.accepted()).as("the first offer after the restart, on a stale pooled connection").isTrue();
            List<String> after = new ArrayList<>(List.of(first.id()));
            for (int i = 1; i < 5; i++) {
                after.add(offered(node.queue, "after-" + i));
            }
            awaitDone(node.queue, after);
            report("restarted empty: the new jobs processed", restarted);

            assertThat(handled).containsAll(after);
            try (RedisClient raw = RedisClient.create(redis.url())) {
                assertThat(raw.xinfoGroups(node.queue.streamKey())).extracting(StreamGroupInfo::getName)
                        .containsExactly(GROUP);
            }
            assertThat(node.queue.outcome(before)).as("its outcome went with the dataset: unknown").isEmpty();
            assertThat(log.warnings()).filteredOn(w -> w.contains("consumer group " + GROUP + " is missing"))
                    .as("each worker says it once").hasSizeBetween(1, 2);
            assertThat(log.warnings()).as("no line per attempt: at most an outage and a lost group per worker")
                    .hasSizeLessThanOrEqualTo(4);
        }
    }

    @Test
    void withRedisDownAtStartTheWorkersStartAndProcessJobsOnceRedisIsUp() throws Exception {
        int port = RedisProcess.freePort();
        try (Node node = new Node("redis://127.0.0.1:" + port, "late");
                LogCapture log = new LogCapture(AdmissionQueue.class.getName())) {
            Set<String> handled = ConcurrentHashMap.newKeySet();
            AdmissionQueue.Worker worker = node.queue.consume(GROUP, "w", entry -> handled.add(entry.id()));
            assertThat(worker.running()).isTrue();
            assertThatThrownBy(() -> node.queue.offer("too early")).isInstanceOf(StoreException.class);
            Await.until("the outage logged", RECOVERY, () -> !outages(log).isEmpty());

            List<String> jobs = new ArrayList<>();
            try (RedisProcess redis = RedisProcess.startOn(port)) {
                long up = System.nanoTime();
                for (int i = 0; i < 3; i++) {
                    jobs.add(offered(node.queue, "job-" + i));
                }
                awaitDone(node.queue, jobs);
                report("down at start-up: the jobs processed", up);
                // read while Redis is still up: once it stops, the worker may log the next outage
                assertThat(outages(log)).as("one line for the outage, not one per attempt").hasSize(1);
                assertThat(log.messages()).anyMatch(m -> m.startsWith("INFO") && m.contains("answers again"));
            }
            assertThat(handled).containsExactlyInAnyOrderElementsOf(jobs);

            long closing = System.nanoTime();                   // Redis is down again
            node.queue.close();
            assertThat(worker.running()).isFalse();
            report("closed with Redis down", closing);
        }
    }

    @Test
    void jobsInASnapshotTakenBeforeTheGroupExistedAreProcessedAfterARestartFromIt() throws Exception {
        try (RedisProcess redis = RedisProcess.start(); Node node = new Node(redis.url(), "snapshot");
                RedisClient raw = RedisClient.create(redis.url())) {
            List<String> jobs = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                jobs.add(offered(node.queue, "job-" + i));
            }
            raw.sendCommand(Protocol.Command.SAVE);                                      // the snapshot: the stream, not yet any group
            CountDownLatch inHand = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            Set<String> handled = ConcurrentHashMap.newKeySet();
            node.queue.consume(GROUP, "w", entry -> {
                inHand.countDown();
                release.await();
                handled.add(entry.id());
            });
            assertThat(inHand.await(10, TimeUnit.SECONDS)).isTrue();

            redis.restart();                                    // SIGKILL; the snapshot is loaded at start-up
            long restarted = System.nanoTime();
            release.countDown();
            awaitDone(node.queue, jobs);
            report("restarted from a snapshot without the group: the queued jobs processed", restarted);
            assertThat(handled).containsExactlyInAnyOrderElementsOf(jobs);
        }
    }

    @Test
    void jobsQueuedBeforeAKillAreProcessedOnceAfterARestartFromTheAppendOnlyFile() throws Exception {
        try (RedisProcess redis = RedisProcess.start("--appendonly", "yes", "--appendfsync", "always");
                Node node = new Node(redis.url(), "persisted")) {
            CountDownLatch inHand = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            Queue<String> handled = new ConcurrentLinkedQueue<>();
            node.queue.consume(GROUP, "w", entry -> {
                inHand.countDown();
                release.await();
                handled.add(entry.id());
            });
            List<String> jobs = new ArrayList<>(List.of(offered(node.queue, "first")));
            assertThat(inHand.await(10, TimeUnit.SECONDS)).isTrue();
            for (int i = 0; i < 3; i++) {
                jobs.add(offered(node.queue, "waiting-" + i));
            }

            redis.restart();                                    // SIGKILL; the append-only file is loaded at start-up
            long restarted = System.nanoTime();
            release.countDown();                                // the first job's outcome is recorded after the restart
            awaitDone(node.queue, jobs);
            report("restarted from its append-only file: the queued jobs processed", restarted);
            assertThat(handled).as("each once").containsExactlyInAnyOrderElementsOf(jobs);
            assertThat(node.queue.outcome(jobs.get(0)).orElseThrow().deliveries())
                    .as("the job in hand at the kill: recorded by its worker, not claimed and run again").isEqualTo(1);
        }
    }

    @Test
    void closingWhileRedisIsPausedEndsEveryWorkerThread() throws Exception {
        try (RedisProcess redis = RedisProcess.start();
                Node node = new Node(redis.url(), "paused", Duration.ofMillis(500))) {
            List<AdmissionQueue.Worker> workers = List.of(node.queue.consume(GROUP, "w-1", entry -> { }),
                    node.queue.consume(GROUP, "w-2", entry -> { }));
            awaitDone(node.queue, List.of(offered(node.queue, "job")));    // both read, blocked in XREADGROUP

            redis.pause();
            try {
                long closing = System.nanoTime();
                node.queue.close();
                report("closed with Redis paused", closing);
                assertThat(workers).noneMatch(AdmissionQueue.Worker::running);
            } finally {
                redis.resume();
            }
        }
    }

    /** @return the id of {@code payload} once the queue accepted it, offered again while it refuses or fails */
    private static String offered(AdmissionQueue queue, String payload) {
        AtomicReference<String> id = new AtomicReference<>();
        Await.until(payload + " accepted", RECOVERY, () -> {
            try {
                AdmissionQueue.Admission a = queue.offer(payload);
                id.set(a.id());
                return a.accepted();
            } catch (StoreException e) {
                return false;                                   // a pooled connection the fault broke: offered again
            }
        });
        return id.get();
    }

    private static void awaitDone(AdmissionQueue queue, List<String> ids) {
        Await.until(ids + " done", RECOVERY, () -> ids.stream().allMatch(id -> {
            try {
                return queue.outcome(id).map(o -> o.status() == AdmissionQueue.Status.DONE).orElse(false);
            } catch (StoreException e) {
                return false;
            }
        }));
    }

    private static List<String> outages(LogCapture log) {
        return log.warnings().stream().filter(w -> w.contains("cannot reach Redis")).toList();
    }

    private static void report(String what, long since) {
        System.out.printf("AdmissionQueueFaultsIT: %s in %d ms%n", what,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - since));
    }

    /** An engine on a RedisStore (the fleet's pace) and a queue on its own client, both on {@code url}. */
    private static final class Node implements AutoCloseable {
        final Engine engine;
        final AdmissionQueue queue;

        Node(String url, String name) {
            this(url, name, Duration.ofSeconds(2));
        }

        Node(String url, String name, Duration timeout) {
            engine = Engine.builder().store(RedisStore.builder().url(url).timeout(Duration.ofSeconds(2)).build())
                    .build();
            queue = AdmissionQueue.builder(name).url(url).claimTimeout(CLAIM).timeout(timeout)
                    .pace(engine.limiter("pace", Policy.parse("100/1s"))).build();
        }

        @Override
        public void close() {
            queue.close();
            engine.close();
        }
    }
}
