package io.sluice.client;

import io.sluice.core.Engine;
import io.sluice.core.Limiter;
import io.sluice.core.RateLimitExceededException;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import io.sluice.core.time.Sleeper;
import io.sluice.core.time.TimeSource;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the JAX-RS filter and the {@code HttpClient} wrapper share, for one {@link OutboundLimit}: {@link #enter} before
 * a call (wait out the key's pause, then spend the limit, within a time), {@link #learn} after it (pause the key on
 * every node, lower the limit to the quota the remote publishes) and {@link #retry} (send a call answered 429 again
 * once the pause ends). Thread-safe.
 */
final class OutboundGate {

    private static final System.Logger LOG = System.getLogger(OutboundGate.class.getName());
    /** A capped pause is logged at most once a minute per limit: {@value} µs. */
    private static final long LOG_EVERY_MICROS = 60_000_000;

    private final Engine engine;
    private final OutboundLimit limit;
    private final TimeSource time;
    private final Sleeper sleeper;
    private final FleetPause pause;
    private final PolicyLearning learning;
    private final AtomicLong loggedCapAt = new AtomicLong(Long.MIN_VALUE);
    /** The limiter of the policy in force: the configured one, or lower where the remote publishes less. */
    private volatile Limiter limiter;

    OutboundGate(Engine engine, OutboundLimit limit) {
        this.engine = engine;
        this.limit = limit;
        this.time = engine.timeSource();
        this.sleeper = Sleeper.of(time);
        this.pause = new FleetPause(engine, limit);
        this.learning = new PolicyLearning(limit.policy());
        this.limiter = engine.limiter(limit.name(), limit.policy(), limit.onStoreFailure());
    }

    /** @return the limit this gate applies */
    OutboundLimit limit() {
        return limit;
    }

    /** @return the policy in force: the configured one, or the lower one the remote publishes */
    Policy policy() {
        return limiter.policy();
    }

    /** @return how long the key stays paused, in µs (0: not paused) */
    long pausedMicros() {
        return pause.remainingMicros();
    }

    /** Before a call: {@link #enter(long)} within the limit's {@code maxWait}. */
    void enter() throws InterruptedException {
        enter(limit.maxWait().toNanos() / 1000);
    }

    /**
     * Before a call: waits for the key's pause to end, then takes the call's permits, waiting for them as
     * {@link Limiter#tryAcquire(String, long, Duration)} does, then for a pause that began meanwhile; all within
     * {@code timeoutMicros}. Permits taken for a call that then fails are spent.
     *
     * @throws RateLimitExceededException at once when the wait would be longer than {@code timeoutMicros}: its
     *     {@link RateLimitExceededException#retryAfter()} is the pause left, or the limit's retry time
     * @throws InterruptedException when the thread is interrupted while it waits: nothing was taken
     */
    void enter(long timeoutMicros) throws InterruptedException {
        long start = time.nowMicros();
        awaitPause(start + timeoutMicros);
        long left = timeoutMicros - (time.nowMicros() - start);
        Limiter l = limiter;
        Outcome o = l.tryAcquire(limit.key(), limit.cost());
        if (o.allowed()) {
            if (o.delayMicros() > 0) {      // queue mode (max-wait): the permits are taken, after this delay
                waitUntil(time.nowMicros() + o.delayMicros());
                awaitPause(start + timeoutMicros);
            }
            return;
        }
        if (o.never() || o.retryAfterMicros() > left
                || !l.tryAcquire(limit.key(), limit.cost(), Duration.of(left, ChronoUnit.MICROS))) {
            throw RateLimitExceededException.of(limit.name(), o);
        }
        awaitPause(start + timeoutMicros);  // a pause may have begun while the call waited for its permits
    }

    /**
     * Waits for the key's pause to end, reading it again after each wait: another node may have extended it meanwhile
     * (the remote answered it 429 again), and a call sent then would be sent during the pause.
     *
     * @throws RateLimitExceededException when the pause lasts past {@code deadline} (epoch µs)
     */
    private void awaitPause(long deadline) throws InterruptedException {
        for (long paused = pause.remainingMicros(); paused > 0; paused = pause.remainingMicros()) {
            long now = time.nowMicros();
            if (now + paused > deadline) {
                throw new RateLimitExceededException(limit.name(), policy().limit(), 0,
                        Duration.of(paused, ChronoUnit.MICROS));
            }
            waitUntil(now + paused);
        }
    }

    private void waitUntil(long deadline) throws InterruptedException {
        while (time.nowMicros() < deadline) {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            sleeper.parkUntil(deadline);
        }
    }

    /**
     * After a response: pauses the key on every node when the remote says its budget is spent, and lowers the limit in
     * force to the quota it publishes (never above the configured one).
     *
     * @return what the answer said
     */
    RemoteAnswer learn(int status, ResponseHeaders headers) {
        RemoteAnswer a = RemoteAnswer.read(status, headers, time.nowMicros(), pause.capMicros());
        if (a == RemoteAnswer.NOTHING) {
            return a;
        }
        pause.pause(a.pauseMicros());
        if (a.capped()) {
            logCapped();
        }
        if (limit.learnPolicy() && a.quota() > 0) {
            Policy lowered = learning.inForce(a.quota(), a.windowSeconds());
            if (!lowered.equals(limiter.policy())) {
                limiter = engine.limiter(limit.name(), lowered, limit.onStoreFailure());
            }
        }
        return a;
    }

    private void logCapped() {
        long now = time.nowMicros();
        long last = loggedCapAt.get();
        if ((last == Long.MIN_VALUE || now - last >= LOG_EVERY_MICROS) && loggedCapAt.compareAndSet(last, now)) {
            LOG.log(Level.WARNING, "Sluice: the remote of outbound limit \"" + limit.name() + "\" asked for a pause "
                    + "longer than max-remote-pause (" + limit.maxRemotePause() + "); pausing for that long instead");
        }
    }

    /** Sends a call again: its request side enters the gate within the time given. */
    @FunctionalInterface
    interface Resend<R> {
        /**
         * @param timeoutMicros the longest the call may wait to enter the gate
         * @throws RateLimitExceededException when it cannot enter in time
         */
        R send(long timeoutMicros) throws IOException, InterruptedException;
    }

    /** Reads a response of the client. */
    interface Responses<R> {
        int status(R response);

        /** Lets go of a response that a retry replaces (closes its body). */
        void discard(R response);
    }

    /**
     * Sends a call answered 429 again while the limit's retries allow (an idempotent method unless configured
     * otherwise, at most {@link OutboundLimit#retries()} times, all within {@link OutboundLimit#retryWithin()} from
     * {@code startMicros}): each retry waits for the pause to end and takes its permits like any call.
     *
     * @return the last response: a retry's, or {@code first} when none was sent, or the last 429 when the pause
     *     outlasts the time left
     */
    <R> R retry(String method, R first, long startMicros, Resend<R> again, Responses<R> responses)
            throws IOException, InterruptedException {
        R r = first;
        if (!limit.retries(method)) {
            return r;
        }
        long end = startMicros + limit.retryWithin().toNanos() / 1000;
        for (int n = 0; n < limit.retries() && responses.status(r) == 429; n++) {
            long left = end - time.nowMicros();
            if (left <= 0 || pause.remainingMicros() > left) {
                return r;
            }
            R next;
            try {
                next = again.send(left);
            } catch (RateLimitExceededException e) {        // no permit in time: the remote's answer stands
                return r;
            }
            responses.discard(r);
            r = next;
        }
        return r;
    }

    /** @return the engine's clock, for callers that time their retries */
    TimeSource time() {
        return time;
    }
}
