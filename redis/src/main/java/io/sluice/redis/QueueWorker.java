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
import redis.clients.jedis.resps.StreamEntry;

/**
 * One worker thread of an {@link AdmissionQueue}: claims an entry idle past the claim timeout ({@code XAUTOCLAIM}), or
 * reads a new one ({@code XREADGROUP}), takes a permit of the fleet's pace, runs the handler and records the outcome.
 * While it waits for the permit, the entry's idle time is refreshed every third of the claim timeout
 * ({@code XCLAIM ... JUSTID} to itself), so that a slow pace does not pass it to another worker; while the handler
 * runs it is not, so that a hung handler's entry is claimed as a dead worker's is. An entry claimed after more than
 * the queue's {@link AdmissionQueue#maxDeliveries() max deliveries} is recorded FAILED without running the handler.
 *
 * <p>The thread creates the consumer group before its first read, and rides out Redis faults as {@link QueueRecovery}
 * says: the group created again on {@code NOGROUP}, pauses between attempts while Redis cannot be reached. Closing it
 * wakes it from such a pause; a read in progress returns within its block time and the client's timeout (the client
 * {@link AdmissionQueue.Builder#url} opens bounds blocking reads too, so a paused Redis does not hold the thread).
 */
final class QueueWorker implements AdmissionQueue.Worker, Runnable {

    private static final StreamEntryID START = new StreamEntryID(0, 0);
    /** The longest a read blocks ({@code XREADGROUP BLOCK}): {@value} ms, less with a short claim timeout. */
    static final int LONGEST_BLOCK_MILLIS = 500;

    private final Setup queue;
    private final QueueCommands commands;
    private final String group;
    private final String consumer;
    private final AdmissionQueue.Handler handler;
    private final Thread thread;
    private final long claimMillis;
    /** How long a read blocks. */
    private final int blockMillis;
    /** The longest a Redis call in progress takes to return (a read's block and the client's timeout): close waits it. */
    private final long callMillis;
    private final QueueRecovery recovery;
    private final AtomicLong finished = new AtomicLong();
    private volatile boolean reading = true;
    /** Set before the thread is interrupted by {@link #close}: what the handler then throws records nothing. */
    private volatile boolean abandoned;
    private StreamEntryID cursor = START;
    private long nextScan;

    /**
     * What a worker needs of its queue.
     *
     * @param name the queue's name
     * @param workers the queue's running workers, which a worker leaves when its thread ends
     * @param callTimeout the timeout of one Redis call ({@link AdmissionQueue.Builder#timeout})
     */
    record Setup(String name, QueueCommands commands, QueuePace pace, QueueWorkers workers, Duration claimTimeout,
            Duration callTimeout, int maxDeliveries) {}

    QueueWorker(Setup queue, String group, String consumer, AdmissionQueue.Handler handler) {
        this.queue = queue;
        this.commands = queue.commands();
        this.group = group;
        this.consumer = consumer;
        this.handler = handler;
        this.claimMillis = queue.claimTimeout().toMillis();
        this.blockMillis = (int) Math.max(10, Math.min(LONGEST_BLOCK_MILLIS, claimMillis / 2));
        this.callMillis = blockMillis + queue.callTimeout().toMillis();
        this.recovery = new QueueRecovery("admission queue " + queue.name() + ", worker " + consumer, group,
                System::nanoTime);
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
        LockSupport.unpark(thread);         // out of a pause between attempts at once
    }

    @Override
    public void close() {
        close(queue.claimTimeout());
    }

    /**
     * Stops reading; waits up to {@code grace} (after the Redis call in progress returns) for the entry in hand to be
     * finished, then interrupts the thread: its entry is left pending, for another worker to claim.
     */
    void close(Duration grace) {
        stopReading();
        if (Thread.currentThread() == thread) {
            return;
        }
        try {
            thread.join(callMillis + Math.max(1, grace.toMillis()));
            if (thread.isAlive()) {
                abandoned = true;
                thread.interrupt();
                thread.join(callMillis + claimMillis);
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
                    step();
                } catch (InterruptedException e) {
                    return;
                } catch (JedisException | StoreException e) {
                    if (!reading || !pause(recovery.failed(e))) {
                        return;
                    }
                }
            }
        } finally {
            queue.workers().forget(this);
        }
    }

    /** One turn: the group created where it must be, then one entry claimed or read, and processed. */
    private void step() throws InterruptedException {
        if (recovery.needsGroup()) {
            commands.createGroup(group);
            recovery.groupCreated();
            cursor = START;
        }
        StreamEntry claimed = claimOne();
        StreamEntry entry = claimed != null ? claimed : readOne();
        recovery.answered();
        if (entry != null) {
            process(entry, claimed != null);
        }
    }

    /** Waits {@code millis} before the next attempt, or until closed. @return whether to go on */
    private boolean pause(long millis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        for (long left = deadline - System.nanoTime(); left > 0 && reading && !abandoned;
                left = deadline - System.nanoTime()) {
            LockSupport.parkNanos(this, left);
            if (Thread.interrupted()) {
                return false;
            }
        }
        return reading && !abandoned;
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
        Map.Entry<StreamEntryID, List<StreamEntry>> r = commands.claim(group, consumer, claimMillis, cursor);
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
        List<Map.Entry<String, List<StreamEntry>>> r = commands.read(group, consumer, blockMillis);
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
            long deliveries = commands.deliveries(group, e.getID());
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
        if (commands.finish(group, entry.id(), status, consumer, error)) {
            finished.incrementAndGet();
        }
    }

    /** Records a poison entry FAILED, as a finished one is recorded, without running the handler or taking a permit. */
    private void giveUp(String id, long deliveries) {
        AdmissionQueue.LOG.log(System.Logger.Level.WARNING, "admission queue " + queue.name() + ", worker " + consumer
                + ": entry " + id + " delivered " + deliveries + " times, over the queue's " + queue.maxDeliveries()
                + "; recorded FAILED without running the handler");
        if (commands.finish(group, id, AdmissionQueue.Status.FAILED, consumer,
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
                commands.touch(group, consumer, id);
                touched = System.nanoTime();
            }
            LockSupport.parkNanos(Math.min(slice, TimeUnit.MILLISECONDS.toNanos(20)));
        }
    }
}
