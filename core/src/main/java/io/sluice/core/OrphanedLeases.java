package io.sluice.core;

import io.sluice.core.log.LogText;
import io.sluice.core.store.Check;
import io.sluice.core.store.Lease;
import io.sluice.core.store.Store;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Concurrency leases that no decision holds but the store may: those of store calls that failed (a call that timed out
 * may still have run and taken them, and nothing else would release them before their lease timeout: a client of a
 * one-in-flight limit would be denied for a minute with nothing in flight), and those of decisions whose release
 * failed. Released, best effort, before the next store call (see {@link StoreGuard}). Bounded; past the bound a lease
 * is left to expire. Thread-safe.
 */
final class OrphanedLeases {

    /** Logs under the engine's name, the one operators configure. */
    private static final System.Logger LOG = System.getLogger(Engine.class.getName());

    /** The most leases kept for release: {@value}. */
    static final int MAX_ORPHANS = 10_000;
    /** How long after a failed release of such leases the next is tried: {@value} µs. */
    static final long RETRY_MICROS = 1_000_000;
    /** The most leases released in one call. */
    private static final int BATCH = 1_000;

    private final ConcurrentLinkedQueue<Lease> leases = new ConcurrentLinkedQueue<>();
    private final AtomicInteger count = new AtomicInteger();
    /** Store time before which no release is tried (after one failed). */
    private volatile long retryAt;
    private volatile boolean failureLogged;

    /** Keeps the leases {@code checks} asked for, which a failed call may have taken. */
    void keepAll(List<Check> checks) {
        for (int i = 0; i < checks.size(); i++) {
            Check c = checks.get(i);
            if (c.leaseId() != null) {
                keep(new Lease(c.rule(), c.key(), c.policy(), c.leaseId()));
            }
        }
    }

    /** Keeps a lease for a later release, unless {@value #MAX_ORPHANS} wait already (it then expires). */
    void keep(Lease lease) {
        if (count.incrementAndGet() <= MAX_ORPHANS) {
            leases.add(lease);
        } else {
            count.decrementAndGet();
        }
    }

    /**
     * Releases the leases kept (releasing one the failed call never took changes nothing), when there are any and no
     * failed release asked to wait. Best effort, never throws: when that fails (a Cluster master still down, say),
     * they are kept and tried again a second later, and the caller's own call goes on; one lease that cannot be
     * released must not stop every call.
     */
    void releaseDue(Store store, long now) {
        if (count.get() == 0 || now < retryAt) {
            return;
        }
        List<Lease> batch = new ArrayList<>();
        for (Lease l; batch.size() < BATCH && (l = leases.poll()) != null; ) {
            batch.add(l);
        }
        count.addAndGet(-batch.size());
        if (batch.isEmpty()) {
            return;
        }
        try {
            store.release(batch, now);
            failureLogged = false;
        } catch (RuntimeException e) {
            if (!failureLogged) {           // once until a release succeeds: it is tried every second
                failureLogged = true;
                LOG.log(Level.WARNING, "could not release " + batch.size() + " concurrency lease(s) of failed store"
                        + " calls; trying again every second until the store takes them (or they expire): "
                        + LogText.summary(e));
            }
            retryAt = now + RETRY_MICROS;
            batch.forEach(this::keep);
        }
    }

    /** @return the leases waiting to be released */
    int size() {
        return count.get();
    }
}
