package io.sluice.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The least a coalescer does, for a floor: the bare one-key script's decisions, sent together while calls are in
 * flight, as Sluice's {@code Coalescer} sends its requests (the same lane: at most {@code maxInFlight} calls at once; a
 * request that finds the lane free goes out alone, in the one-key script; the thread whose call returns sends one
 * batch of at most {@value #MAX_REQUESTS} waiting keys in the batched script, then hands the lane to the oldest
 * waiting thread). Nothing else: no checks to encode, no outcomes to decode (a reply of 0 or 1 per key), no time
 * bound on a wait, no failure handling. Not a contender: the ceiling of batching itself on this machine.
 */
final class BareBatcher {

    /** The most keys in one batch, as {@code Coalescer.MAX_REQUESTS}. */
    static final int MAX_REQUESTS = 64;

    /** The two scripts: one key alone, and several keys decided one after the other. */
    interface Calls {
        long one(String key);

        List<?> many(List<String> keys);
    }

    private final Calls calls;
    private final int maxInFlight;
    private final ConcurrentLinkedQueue<Pending> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger inFlight = new AtomicInteger();

    BareBatcher(Calls calls, int maxInFlight) {
        this.calls = calls;
        this.maxInFlight = maxInFlight;
    }

    /** @return whether the key's decision admitted it */
    boolean decide(String key) {
        if (tryAcquire()) {
            try {
                return calls.one(key) == 1;
            } finally {
                serve();
            }
        }
        Pending p = new Pending(key);
        queue.add(p);
        while (!p.done) {
            if (tryAcquire()) {
                serve();
                continue;
            }
            LockSupport.parkNanos(this, 10_000_000L);
        }
        return p.admitted;
    }

    /** One batch of what waits, then the lane given back, and handed to the oldest waiting thread if any. */
    private void serve() {
        boolean sent = false;
        while (true) {
            if (!sent) {
                List<Pending> batch = take();
                if (!batch.isEmpty()) {
                    send(batch);
                    sent = true;
                    continue;
                }
            }
            inFlight.decrementAndGet();
            Pending head = queue.peek();
            if (head == null) {
                return;
            }
            if (!sent && tryAcquire()) {
                continue;
            }
            LockSupport.unpark(head.owner);
            return;
        }
    }

    private void send(List<Pending> batch) {
        if (batch.size() == 1) {
            batch.get(0).complete(calls.one(batch.get(0).key) == 1);
            return;
        }
        List<String> keys = new ArrayList<>(batch.size());
        for (Pending p : batch) {
            keys.add(p.key);
        }
        List<?> reply = calls.many(keys);
        for (int i = 0; i < batch.size(); i++) {
            batch.get(i).complete(((Number) reply.get(i)).longValue() == 1);
        }
    }

    private List<Pending> take() {
        List<Pending> batch = new ArrayList<>();
        Pending p;
        while (batch.size() < MAX_REQUESTS && (p = queue.poll()) != null) {
            batch.add(p);
        }
        return batch;
    }

    private boolean tryAcquire() {
        for (int n = inFlight.get(); n < maxInFlight; n = inFlight.get()) {
            if (inFlight.compareAndSet(n, n + 1)) {
                return true;
            }
        }
        return false;
    }

    /** One waiting key and, once its batch returned, its decision. */
    private static final class Pending {
        final String key;
        final Thread owner = Thread.currentThread();
        boolean admitted;
        volatile boolean done;

        Pending(String key) {
            this.key = key;
        }

        void complete(boolean decision) {
            admitted = decision;
            done = true;
            if (owner != Thread.currentThread()) {
                LockSupport.unpark(owner);
            }
        }
    }
}
