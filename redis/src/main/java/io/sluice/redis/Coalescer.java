package io.sluice.redis;

import io.sluice.core.policy.Outcome;
import io.sluice.core.store.Check;
import io.sluice.core.store.StoreException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * Coalesced calls: the requests that arrive while a call to the same Redis node is in flight are sent together in the
 * next call, one script invocation that decides them one after the other, each
 * all-or-nothing across its own checks and answered with its own outcomes (the script's batch mode). A request that
 * finds no call in flight goes out at once, alone, as without coalescing.
 *
 * <p>The thread whose call is in flight (the <i>leader</i>) sends, when its own call returns, what queued meanwhile in
 * batches bounded by count, keys and bytes, so that a batch never blocks Redis long; after a few batches it hands the
 * lane to the oldest waiting request's thread, so that no caller works for the others for long. Waiting threads park;
 * each request is answered exactly once, with its outcomes or with the failure of the call that carried it.
 *
 * <p>In a Cluster a batch's declared keys must share a hash slot. Where functions serve ({@link Call#acrossSlots}),
 * the lanes are per master node ({@link NodeLanes}) and a batch of requests in the fast mode whose keys live in
 * several slots of the node is one call of {@link Call#across}; where that call finds a slot elsewhere (moved or
 * moving) nothing ran, and the batch goes again slot by slot, each call routed (and redirected) by its slot. Else
 * (Redis 6.2, whose scripts have no flags) the lanes are per hash slot.
 */
final class Coalescer {

    /** The most requests in one batch. */
    static final int MAX_REQUESTS = 64;
    /** A batch takes no more requests once it has this many keys (the sum of its requests' checks). */
    static final int MAX_KEYS = 512;
    /** A batch takes no more requests once its arguments have this many bytes. */
    static final int MAX_BYTES = 64 * 1024;
    /** The batches a leader sends for others after its own call before it hands the lane on. */
    static final int MAX_ROUNDS = 1;
    /** A request of the script's library mode (a sliding log, a lease...) weighs this many of {@link #MAX_REQUESTS}. */
    static final int LIBRARY_WEIGHT = 8;
    private static final int CLUSTER_SLOTS = 16384;

    /** How one call is made: the script with its keys first ({@link RedisScript#run}). */
    interface Call {
        Object run(int keys, byte[][] params);

        /**
         * A fast batch whose keys live in several slots of one Cluster node ({@link RedisScript#across}).
         *
         * @throws RedisScript.Misrouted where it did not run: the batch is to be sent slot by slot
         */
        default Object across(int keys, byte[][] params) {
            throw new RedisScript.Misrouted("no calls across slots");
        }

        /** @return whether {@link #across} may serve now (functions, not scripts, on the servers) */
        default boolean acrossSlots() {
            return false;
        }
    }

    private final Call call;
    private final int maxInFlight;
    /** How long a request waits for its batch before it gives up: a few calls' time budgets. */
    private final long waitNanos;
    private final AtomicReferenceArray<Lane> lanes;
    /** A Cluster's lanes per node; null outside a Cluster. */
    private final NodeLanes nodes;
    private final AtomicInteger batches = new AtomicInteger();
    private final AtomicInteger batched = new AtomicInteger();
    private final AtomicInteger rerouted = new AtomicInteger();

    /**
     * @param maxInFlight the calls a lane may have in flight at once before requests wait to be coalesced
     * @param cluster whether lanes are per hash slot (a Cluster without the hash tag), else one lane
     * @param timeout the time budget of one call
     */
    Coalescer(Call call, int maxInFlight, boolean cluster, Duration timeout) {
        this(call, maxInFlight, cluster, timeout, null);
    }

    /** @param nodes a Cluster's lanes per node, where its requests go while {@link Call#acrossSlots}; null for none */
    Coalescer(Call call, int maxInFlight, boolean cluster, Duration timeout, NodeLanes nodes) {
        this.call = call;
        this.nodes = nodes;
        this.maxInFlight = maxInFlight;
        this.waitNanos = 3 * timeout.toNanos() + 10_000_000L;
        this.lanes = new AtomicReferenceArray<>(cluster ? CLUSTER_SLOTS : 1);
    }

    /**
     * Decides one request whose checks are all in {@code slot}'s lane.
     *
     * @param slot the hash slot of its keys, or 0 when there is one lane
     * @param alone the call of the request alone (in the fast mode where it applies), made when the lane is free
     * @param request the request as part of a batch, built only when it waits
     */
    List<Outcome> evaluate(int slot, List<Check> checks, Supplier<Object> alone,
            Supplier<BatchRequest> request) {
        Lane lane = lane(slot);
        if (lane.tryAcquire(maxInFlight)) {
            try {
                return ScriptReplies.outcomes(alone.get(), checks);
            } finally {
                serve(lane);
            }
        }
        Pending p = new Pending(checks, request.get(), slot);
        lane.queue.add(p);
        boolean interrupted = false;
        try {
            await(lane, p);
        } finally {
            interrupted |= Thread.interrupted();
            if (interrupted || p.interrupted) {
                Thread.currentThread().interrupt();     // kept for the caller; a set flag would not let park wait
            }
        }
        return p.result();
    }

    /**
     * Waits for {@code p}'s answer, serving the lane when it is free. A request that waited {@link #waitNanos} and was
     * not sent yet is taken back and fails; one already sent waits as long again for its call, which the socket's
     * timeout bounds, and then fails too (the call may have run).
     */
    private void await(Lane lane, Pending p) {
        long deadline = System.nanoTime() + waitNanos;
        boolean sent = false;
        while (!p.done) {
            if (lane.tryAcquire(maxInFlight)) {
                serve(lane);
                continue;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                if (!sent && lane.queue.remove(p)) {
                    throw new StoreException("Redis call not sent: waited " + waitNanos / 1_000_000
                            + " ms for the calls in flight to the same node");
                }
                if (sent) {
                    throw new StoreException("Redis call unanswered after " + 2 * waitNanos / 1_000_000 + " ms");
                }
                sent = true;
                deadline = System.nanoTime() + waitNanos;
                continue;
            }
            LockSupport.parkNanos(this, left);
            p.interrupted |= Thread.interrupted();
        }
    }

    /**
     * @return the number of batch calls made, of requests they carried, and of batches across slots sent again slot
     *     by slot, for tests and benchmarks
     */
    int[] counts() {
        return new int[] {batches.get(), batched.get(), rerouted.get()};
    }

    /**
     * Sends what waits in {@code lane}, holding one of its calls in flight, for at most {@link #MAX_ROUNDS} batches;
     * then gives the call back, and hands the lane to the oldest waiting request's thread if any is left.
     */
    private void serve(Lane lane) {
        int rounds = 0;
        while (true) {
            if (rounds < MAX_ROUNDS) {
                List<Pending> batch;
                try {
                    batch = lane.take();
                } catch (Throwable e) {         // out of memory, say: the lane is given back, its waiters time out
                    lane.release();
                    throw e;
                }
                if (!batch.isEmpty()) {
                    if (lane.node && batch.size() > 1) {
                        sendNode(batch);
                    } else {
                        send(batch);
                    }
                    rounds++;
                    continue;
                }
            }
            lane.release();
            Pending head = lane.queue.peek();
            if (head == null) {
                return;
            }
            if (rounds < MAX_ROUNDS && lane.tryAcquire(maxInFlight)) {
                continue;       // arrived after the queue was found empty: served here
            }
            LockSupport.unpark(head.owner);     // it finds the lane free, or a leader that serves it
            return;
        }
    }

    private void send(List<Pending> batch) {
        try {
            if (batch.size() == 1) {
                Pending p = batch.get(0);
                p.complete(ScriptReplies.outcomes(call.run(p.request.keys().length, p.request.single()), p.checks), null);
                return;
            }
            sendTogether(batch, false);
        } catch (RuntimeException | Error e) {
            for (Pending p : batch) {
                p.complete(null, e);        // each request's thread throws it; this one goes on serving the lane
            }
        }
    }

    /** Sends {@code batch} in one call of the script's batch mode, and answers its requests. */
    private void sendTogether(List<Pending> batch, boolean across) {
        List<BatchRequest> requests = new ArrayList<>(batch.size());
        List<List<Check>> checks = new ArrayList<>(batch.size());
        for (Pending p : batch) {
            requests.add(p.request);
            checks.add(p.checks);
        }
        List<List<Outcome>> outcomes = together(call, requests, checks, across);
        batches.incrementAndGet();
        batched.addAndGet(batch.size());
        for (int i = 0; i < batch.size(); i++) {       // every answer first: a thread not parked yet never parks
            batch.get(i).answer(outcomes.get(i), null);
        }
        for (Pending p : batch) {
            p.wake();
        }
    }

    /**
     * Sends a batch of one node's lane: in one call across its slots where every request has the fast mode, else (or
     * where that call finds a slot elsewhere) one call per slot, in the order of the batch.
     */
    private void sendNode(List<Pending> batch) {
        Map<Integer, List<Pending>> bySlot = new LinkedHashMap<>();
        boolean fast = true;
        for (Pending p : batch) {
            bySlot.computeIfAbsent(p.slot, s -> new ArrayList<>(2)).add(p);
            fast &= p.request.fast() != null;
        }
        if (bySlot.size() > 1 && fast) {
            try {
                sendTogether(batch, true);
                return;
            } catch (RedisScript.Misrouted e) {
                rerouted.incrementAndGet();
                bySlot.keySet().forEach(nodes::forget);     // nothing ran: slot by slot, each call routed anew
            } catch (RuntimeException | Error e) {
                for (Pending p : batch) {
                    p.complete(null, e);
                }
                return;
            }
        }
        for (List<Pending> group : bySlot.values()) {
            send(group);
        }
    }

    /** Decides {@code requests} in one call of the script's batch mode, one after the other: each one's outcomes. */
    static List<List<Outcome>> together(Call call, List<BatchRequest> requests, List<List<Check>> checks) {
        return together(call, requests, checks, false);
    }

    /** @param across whether their keys live in several slots of one Cluster node ({@link Call#across}) */
    private static List<List<Outcome>> together(Call call, List<BatchRequest> requests, List<List<Check>> checks,
            boolean across) {
        ScriptCodec.Batch encoded = ScriptCodec.batch(requests);
        Object reply = across ? call.across(encoded.keys(), encoded.params())
                : call.run(encoded.keys(), encoded.params());
        return ScriptReplies.outcomes(reply, encoded, checks);
    }

    private Lane lane(int slot) {
        if (nodes != null && call.acrossSlots()) {
            Lane node = nodes.lane(slot);
            if (node != null) {
                return node;
            }
        }
        Lane lane = lanes.get(slot);
        if (lane == null) {
            lanes.compareAndSet(slot, null, new Lane(false));
            lane = lanes.get(slot);
        }
        return lane;
    }

    /** The requests waiting for one node (or slot), and its calls in flight. */
    static final class Lane {
        final ConcurrentLinkedQueue<Pending> queue = new ConcurrentLinkedQueue<>();
        final AtomicInteger inFlight = new AtomicInteger();
        /** Whether it is a Cluster node's lane, whose requests' keys may live in several slots. */
        final boolean node;

        Lane(boolean node) {
            this.node = node;
        }

        boolean tryAcquire(int max) {
            for (int n = inFlight.get(); n < max; n = inFlight.get()) {
                if (inFlight.compareAndSet(n, n + 1)) {
                    return true;
                }
            }
            return false;
        }

        void release() {
            inFlight.decrementAndGet();
        }

        /**
         * @return the oldest waiting requests, taken from the queue until one of the bounds is reached (the last one
         *     taken may pass the bounds of keys and bytes: a request is never split)
         */
        List<Pending> take() {
            List<Pending> batch = new ArrayList<>();
            int keys = 0;
            int bytes = 0;
            int weight = 0;
            while (weight < MAX_REQUESTS && keys < MAX_KEYS && bytes < MAX_BYTES) {
                Pending p = queue.poll();
                if (p == null) {
                    break;
                }
                batch.add(p);
                weight += p.request.library() ? LIBRARY_WEIGHT : 1;
                keys += p.request.keys().length;
                bytes += p.request.bytes();
            }
            return batch;
        }
    }

    /** One waiting request and, once its call returned, its outcomes or the call's failure. */
    private static final class Pending {
        final List<Check> checks;
        final BatchRequest request;
        /** The hash slot of its keys (0 outside a Cluster). */
        final int slot;
        final Thread owner = Thread.currentThread();
        /** Whether its thread was interrupted while it waited (only that thread reads and writes it). */
        boolean interrupted;
        private List<Outcome> outcomes;
        private Throwable failure;
        volatile boolean done;

        Pending(List<Check> checks, BatchRequest request, int slot) {
            this.checks = checks;
            this.request = request;
            this.slot = slot;
        }

        void complete(List<Outcome> result, Throwable error) {
            answer(result, error);
            wake();
        }

        /** Sets the answer, without waking the owner yet ({@link #wake}). */
        void answer(List<Outcome> result, Throwable error) {
            outcomes = result;
            failure = error;
            done = true;        // publishes the two fields above
        }

        void wake() {
            if (owner != Thread.currentThread()) {
                LockSupport.unpark(owner);
            }
        }

        List<Outcome> result() {
            if (failure == null) {
                return outcomes;
            }
            if (failure instanceof RuntimeException e) {     // this thread's stack, the call's failure as the cause
                throw new StoreException(e instanceof StoreException ? e.getMessage()
                        : "Redis call failed: " + e, e);
            }
            throw (Error) failure;
        }
    }
}
