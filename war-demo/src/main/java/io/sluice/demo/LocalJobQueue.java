package io.sluice.demo;

import io.sluice.core.store.JobQueue;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The demo's queue without Redis: a {@link JobQueue} in this JVM, holding at most {@code bound} jobs waiting and in
 * progress, one worker thread processing one every {@code interval}. For the playground only: a real application uses
 * {@code AdmissionQueue} (fleet-wide, on Redis), as the demo does when {@code SLUICE_REDIS_URL} is set.
 */
final class LocalJobQueue implements JobQueue, AutoCloseable {

    private static final int KEPT = 1_000;

    private final String name;
    private final int bound;
    private final Duration interval;
    private final Deque<String> waiting = new ArrayDeque<>();
    private final Map<String, Job> jobs = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Job> eldest) {
            return size() > KEPT;
        }
    };
    private final Thread worker;
    private long sequence;
    private int inProgress;

    LocalJobQueue(String name, int bound, Duration interval) {
        this.name = name;
        this.bound = bound;
        this.interval = interval;
        this.worker = new Thread(this::work, "demo-jobs-worker");
        worker.setDaemon(true);
        worker.start();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int maxPayloadBytes() {
        return 16 * 1024;
    }

    @Override
    public synchronized Offer offer(String payload) {
        int held = waiting.size() + inProgress;
        if (held >= bound) {
            return Offer.refused(interval.multipliedBy(held - bound + 1L));
        }
        String id = System.currentTimeMillis() + "-" + sequence++;
        jobs.put(id, new Job(id, Status.QUEUED, null, 0));
        waiting.add(id);
        notifyAll();
        return Offer.accepted(id);
    }

    @Override
    public synchronized Optional<Job> job(String id) {
        return Optional.ofNullable(jobs.get(id));
    }

    private void work() {
        try {
            while (true) {
                String id;
                synchronized (this) {
                    while (waiting.isEmpty()) {
                        wait();
                    }
                    id = waiting.poll();
                    inProgress++;
                    jobs.put(id, new Job(id, Status.PROCESSING, null, 1));
                }
                Thread.sleep(interval.toMillis());            // the "work": the pace of one job per interval
                synchronized (this) {
                    inProgress--;
                    jobs.put(id, new Job(id, Status.DONE, Instant.now(), 1));
                }
            }
        } catch (InterruptedException stopped) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        worker.interrupt();
    }
}
