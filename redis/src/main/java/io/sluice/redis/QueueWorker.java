package io.sluice.redis;

import io.sluice.core.store.StoreException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.params.XAutoClaimParams;
import redis.clients.jedis.params.XClaimParams;
import redis.clients.jedis.params.XReadGroupParams;
import redis.clients.jedis.resps.StreamEntry;

/**
 * One worker thread of an {@link AdmissionQueue}: claims an entry idle past the claim timeout ({@code XAUTOCLAIM}), or
 * reads a new one ({@code XREADGROUP}), takes a permit of the fleet's pace, runs the handler and records the outcome.
 * While it waits for the permit, the entry's idle time is refreshed every third of the claim timeout
 * ({@code XCLAIM ... JUSTID} to itself), so that a slow pace does not pass it to another worker; while the handler
 * runs it is not, so that a hung handler's entry is claimed as a dead worker's is. An entry claimed after more than
 * the queue's {@link AdmissionQueue#maxDeliveries() max deliveries} is recorded FAILED without running the handler.
 */
final class QueueWorker implements AdmissionQueue.Worker, Runnable {

    private static final StreamEntryID START = new StreamEntryID(0, 0);

    private final AdmissionQueue queue;
    private final String group;
    private final String consumer;
    private final AdmissionQueue.Handler handler;
    private final Thread thread;
    private final long claimMillis;
    /** The longest a read blocks: how long a close may wait for the thread to notice. */
    private final int blockMillis;
    private final AtomicLong finished = new AtomicLong();
    private volatile boolean reading = true;
    /** Set before the thread is interrupted by {@link #close}: what the handler then throws records nothing. */
    private volatile boolean abandoned;
    private StreamEntryID cursor = START;
    private long nextScan;

    QueueWorker(AdmissionQueue queue, String group, String consumer, AdmissionQueue.Handler handler) {
        this.queue = queue;
        this.group = group;
        this.consumer = consumer;
        this.handler = handler;
        this.claimMillis = queue.claimTimeout().toMillis();
        this.blockMillis = (int) Math.max(10, Math.min(500, claimMillis / 2));
        this.thread = new Thread(this, "sluice-queue-" + queue.name() + "-" + consumer);
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    @Override
    public String consumer() {
        return consumer;
    }

    @Override
    public long finished() {
        return finished.get();
    }

    @Override
    public boolean running() {
        return thread.isAlive();
    }

    void stopReading() {
        reading = false;
    }

    @Override
    public void close() {
        close(queue.claimTimeout());
    }

    /**
     * Stops reading; waits up to {@code grace} (after the read in progress returns) for the entry in hand to be
     * finished, then interrupts the thread: its entry is left pending, for another worker to claim.
     */
    void close(Duration grace) {
        reading = false;
        if (Thread.currentThread() == thread) {
            return;
        }
        try {
            thread.join(blockMillis + Math.max(1, grace.toMillis()));
            if (thread.isAlive()) {
                abandoned = true;
                thread.interrupt();
                thread.join(blockMillis + claimMillis);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void run() {
        try {
            while (reading && !abandoned) {
                try {
                    StreamEntry claimed = claimOne();
                    StreamEntry entry = claimed != null ? claimed : readOne();
                    if (entry != null) {
                        process(entry, claimed != null);
                    }
                } catch (InterruptedException e) {
                    return;
                } catch (JedisException | StoreException e) {
                    if (!reading) {
                        return;
                    }
                    AdmissionQueue.LOG.log(System.Logger.Level.WARNING, "admission queue " + queue.name()
                            + ", worker " + consumer + ": " + e.getMessage() + "; trying again");
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(blockMillis));
                    if (Thread.interrupted()) {
                        return;
                    }
                }
            }
        } finally {
            queue.forget(this);
        }
    }

    /**
     * @return an entry idle past the claim timeout, now this worker's; null when none. The pending entries are scanned
     *     from where the last call stopped; once the scan has gone round, the next starts half a claim timeout later.
     */
    private StreamEntry claimOne() {
        long now = System.nanoTime();
        if (cursor.equals(START) && now - nextScan < 0) {
            return null;
        }
        Map.Entry<StreamEntryID, List<StreamEntry>> r = queue.redis().xautoclaim(queue.streamKey(), group, consumer,
                claimMillis, cursor, XAutoClaimParams.xAutoClaimParams().count(1));
        cursor = r.getKey();
        if (cursor.equals(START)) {
            nextScan = now + TimeUnit.MILLISECONDS.toNanos(claimMillis / 2);
        }
        for (StreamEntry e : r.getValue()) {
            if (e != null && e.getFields() != null) {       // Redis 6.2 answers a deleted entry as nil
                return e;
            }
        }
        return null;
    }

    private StreamEntry readOne() {
        List<Map.Entry<String, List<StreamEntry>>> r = queue.redis().xreadGroup(group, consumer,
                XReadGroupParams.xReadGroupParams().count(1).block(blockMillis),
                Map.of(queue.streamKey(), StreamEntryID.XREADGROUP_UNDELIVERED_ENTRY));
        if (r == null) {
            return null;
        }
        for (Map.Entry<String, List<StreamEntry>> s : r) {
            for (StreamEntry e : s.getValue()) {
                if (e != null && e.getFields() != null) {
                    return e;
                }
            }
        }
        return null;
    }

    private void process(StreamEntry e, boolean reclaimed) throws InterruptedException {
        // only a claimed entry's deliveries are asked for: an entry read as new (XREADGROUP >) is at its first
        // delivery, within any bound (at least 1), so a read costs no round trip more
        if (reclaimed) {
            long deliveries = queue.deliveries(group, e.getID());
            if (deliveries == 0) {
                return;         // no longer pending: its first worker recorded the outcome since, nothing to run
            }
            if (deliveries > queue.maxDeliveries()) {
                giveUp(e.getID().toString(), deliveries);
                return;
            }
        }
        waitForPermit(e.getID());
        AdmissionQueue.Entry entry = QueueCommands.entry(e, reclaimed);
        AdmissionQueue.Status status = AdmissionQueue.Status.DONE;
        String error = null;
        try {
            handler.handle(entry);
        } catch (Exception failure) {
            if (abandoned) {
                throw new InterruptedException("closed");   // the entry stays pending: another worker claims it
            }
            status = AdmissionQueue.Status.FAILED;
            error = failure.getClass().getName() + (failure.getMessage() == null ? "" : ": " + failure.getMessage());
        }
        if (queue.finish(group, entry.id(), status, consumer, error)) {
            finished.incrementAndGet();
        }
    }

    /** Records a poison entry FAILED, as a finished one is recorded, without running the handler or taking a permit. */
    private void giveUp(String id, long deliveries) {
        AdmissionQueue.LOG.log(System.Logger.Level.WARNING, "admission queue " + queue.name() + ", worker " + consumer
                + ": entry " + id + " delivered " + deliveries + " times, over the queue's " + queue.maxDeliveries()
                + "; recorded FAILED without running the handler");
        if (queue.finish(group, id, AdmissionQueue.Status.FAILED, consumer,
                "gave up after " + deliveries + " deliveries")) {
            finished.incrementAndGet();
        }
    }

    /**
     * Takes one permit of the fleet's pace, refreshing the entry's idle time every third of the claim timeout while it
     * waits.
     */
    private void waitForPermit(StreamEntryID id) throws InterruptedException {
        long slice = TimeUnit.MILLISECONDS.toNanos(Math.max(1, claimMillis / 3));
        long touched = System.nanoTime();
        // tryAcquire gives up at once when the pace's retry time is past the slice: then this thread parks a little
        // (the engine answers the denied key from its cache meanwhile, without a round trip) and asks again
        while (!queue.pace().tryAcquire(Duration.ofNanos(slice))) {
            if (abandoned || Thread.interrupted()) {
                throw new InterruptedException("closed");
            }
            if (System.nanoTime() - touched >= slice) {
                queue.redis().xclaimJustId(queue.streamKey(), group, consumer, 0, XClaimParams.xClaimParams(), id);
                touched = System.nanoTime();
            }
            LockSupport.parkNanos(Math.min(slice, TimeUnit.MILLISECONDS.toNanos(20)));
        }
    }
}
