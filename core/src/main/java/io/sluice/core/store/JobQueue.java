package io.sluice.core.store;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * A bounded queue of jobs that a front door offers requests to, over the immediate rate of a rule in {@code enqueue}
 * mode, and whose outcomes it reports to clients. Sluice's implementation is {@code AdmissionQueue} of
 * {@code sluice-redis} ({@code AdmissionQueue.asJobQueue()}): fleet-wide, on a Redis Stream.
 *
 * <p>Implementations are thread-safe.
 */
public interface JobQueue {

    /** @return the queue's name, as rules name it ({@code enqueue: <name>}) */
    String name();

    /** @return the largest payload {@link #offer} takes, in UTF-8 bytes */
    int maxPayloadBytes();

    /**
     * Offers a payload.
     *
     * @return accepted with the job's id, or refused (the queue is full) with a retry hint
     * @throws IllegalArgumentException when the payload is longer than {@link #maxPayloadBytes()}
     * @throws StoreException when the queue's store cannot be reached
     */
    Offer offer(String payload);

    /**
     * @param id a job's id as {@link #offer} gave it
     * @return what is known of it; empty when unknown (never accepted, its outcome expired, or not an id of this queue)
     * @throws StoreException when the queue's store cannot be reached
     */
    Optional<Job> job(String id);

    /**
     * The answer to {@link #offer}.
     *
     * @param accepted whether the job entered the queue
     * @param id the job's id when accepted, else null
     * @param retryAfter when refused, how long the queue needs to free a place; {@link Duration#ZERO} when accepted
     */
    record Offer(boolean accepted, String id, Duration retryAfter) {

        /** @return an accepted offer */
        public static Offer accepted(String id) {
            return new Offer(true, id, Duration.ZERO);
        }

        /** @return a refused offer */
        public static Offer refused(Duration retryAfter) {
            return new Offer(false, null, retryAfter);
        }
    }

    /** Where a job is. */
    enum Status {
        /** Waiting for a worker. */
        QUEUED,
        /** A worker has it. */
        PROCESSING,
        /** Processed. */
        DONE,
        /** Its processing failed. */
        FAILED
    }

    /**
     * What is known of a job.
     *
     * @param id its id
     * @param status where it is
     * @param at when its outcome was recorded (DONE, FAILED), else null
     * @param deliveries how many times it was handed to a worker (0 while QUEUED)
     */
    record Job(String id, Status status, Instant at, long deliveries) {}
}
