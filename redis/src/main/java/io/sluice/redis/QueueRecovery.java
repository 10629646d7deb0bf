package io.sluice.redis;

import io.sluice.core.store.StoreException;
import java.lang.System.Logger.Level;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * How a {@link QueueWorker} rides out Redis faults. Its consumer group is created by the worker's own thread, before its
 * first read and again when Redis answers {@code NOGROUP} (restarted with an empty dataset or from a snapshot older than
 * the group, failed over to a replica without it); the worker creates it from the stream's start, so that what the
 * stream holds is delivered. While Redis cannot be reached or fails, the worker waits between attempts:
 * {@value #FIRST_PAUSE_MILLIS} ms at first, twice as long after each failure, at most {@value #LONGEST_PAUSE_MILLIS} ms.
 * An outage is logged once, a WARNING when it begins and an INFO when Redis answers again, not once per attempt.
 *
 * <p>Confined to the worker's thread.
 */
final class QueueRecovery {

    /** The pause after the first failed attempt: {@value} ms. */
    static final long FIRST_PAUSE_MILLIS = 50;
    /** The longest pause between two attempts: {@value} ms; once Redis is back, the queue drains within it. */
    static final long LONGEST_PAUSE_MILLIS = 2_000;

    private final String who;
    private final String group;
    private final LongSupplier nanoTime;
    /** Whether the group exists, as far as this worker knows: created, and not answered {@code NOGROUP} since. */
    private boolean groupReady;
    /** Whether a call answered since the group was created: a {@code NOGROUP} then means that Redis lost it. */
    private boolean groupSeen;
    /** When the outage under way began ({@link #nanoTime}); meaningful while {@link #outage}. */
    private long outageSince;
    private boolean outage;
    private long pauseMillis = FIRST_PAUSE_MILLIS;

    /**
     * @param who the worker, as its log lines name it: {@code admission queue <name>, worker <consumer>}
     * @param nanoTime the clock of the outage's length ({@link System#nanoTime})
     */
    QueueRecovery(String who, String group, LongSupplier nanoTime) {
        this.who = who;
        this.group = group;
        this.nanoTime = nanoTime;
    }

    /** @return whether the worker is to create its group before it reads */
    boolean needsGroup() {
        return !groupReady;
    }

    /**
     * The group was created (or was there). An outage ends with the first read that follows, not here: where the group
     * goes missing again before any read, the pauses go on growing.
     */
    void groupCreated() {
        groupReady = true;
        groupSeen = false;
    }

    /** A read answered: an outage under way ends (logged once), and the next pause is the first again. */
    void answered() {
        groupSeen = groupReady;
        endOutage();
    }

    private void endOutage() {
        pauseMillis = FIRST_PAUSE_MILLIS;
        if (outage) {
            outage = false;
            AdmissionQueue.LOG.log(Level.INFO, who + ": Redis answers again, after "
                    + TimeUnit.NANOSECONDS.toMillis(nanoTime.getAsLong() - outageSince) + " ms; going on");
        }
    }

    /**
     * A call failed.
     *
     * @return how long to wait before the next attempt, in milliseconds: none when the group went missing (it is
     *     created again at once), else the next pause of the outage
     */
    long failed(RuntimeException failure) {
        if (missingGroup(failure)) {
            boolean lost = groupSeen;
            groupReady = false;
            if (lost) {            // Redis answered: not an outage; the group is created again at once, said once
                endOutage();
                AdmissionQueue.LOG.log(Level.WARNING, who + ": consumer group " + group + " is missing (Redis"
                        + " restarted empty or from an older snapshot, or failed over to a replica without it):"
                        + " creating it again, from the stream's start; entries still in the stream are delivered"
                        + " again, and those Redis lost are gone with their outcomes");
                return 0;
            }
        }
        if (!outage) {
            outage = true;
            outageSince = nanoTime.getAsLong();
            AdmissionQueue.LOG.log(Level.WARNING, who + ": cannot reach Redis, or it fails (" + describe(failure)
                    + "); the queue's entries wait there: trying again, up to " + LONGEST_PAUSE_MILLIS
                    + " ms apart, and saying so once Redis answers");
        }
        long pause = pauseMillis;
        pauseMillis = Math.min(LONGEST_PAUSE_MILLIS, pauseMillis * 2);
        return pause;
    }

    /** @return whether Redis answered {@code NOGROUP}: the stream or the group is missing */
    static boolean missingGroup(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof JedisDataException && t.getMessage() != null && t.getMessage().contains("NOGROUP")) {
                return true;
            }
        }
        return false;
    }

    /** @return the Redis client's message of the failure, and its root cause's where another (a refused connection) */
    private static String describe(Throwable failure) {
        Throwable shown = failure;
        while (shown instanceof StoreException && shown.getCause() != null) {
            shown = shown.getCause();
        }
        Throwable root = shown;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return shown.getMessage() + (root == shown ? "" : "; " + root);
    }
}
