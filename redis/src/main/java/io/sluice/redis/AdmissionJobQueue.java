package io.sluice.redis;

import io.sluice.core.store.JobQueue;
import java.util.Optional;

/**
 * An {@link AdmissionQueue} as the {@link JobQueue} a front door offers requests to ({@link AdmissionQueue#asJobQueue});
 * an outcome's worker and error are left out (clients see them otherwise).
 */
final class AdmissionJobQueue implements JobQueue {

    private final AdmissionQueue queue;
    private final int maxPayloadBytes;

    AdmissionJobQueue(AdmissionQueue queue, int maxPayloadBytes) {
        this.queue = queue;
        this.maxPayloadBytes = maxPayloadBytes;
    }

    @Override
    public String name() {
        return queue.name();
    }

    @Override
    public int maxPayloadBytes() {
        return maxPayloadBytes;
    }

    @Override
    public Offer offer(String payload) {
        AdmissionQueue.Admission a = queue.offer(payload);
        return a.accepted() ? Offer.accepted(a.id()) : Offer.refused(a.retryAfter());
    }

    @Override
    public Optional<Job> job(String id) {
        return queue.outcome(id).map(o -> new Job(o.id(), JobQueue.Status.valueOf(o.status().name()), o.at(),
                o.deliveries()));
    }

    @Override
    public String toString() {
        return "AdmissionQueue " + queue.name();
    }
}
