package io.sluice.core.store;

import io.sluice.core.internal.LogThrottle;
import io.sluice.core.log.LogText;
import io.sluice.core.time.TimeSource;
import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Stops calling a failing store. Closed: every call goes through, and {@code failureThreshold} consecutive failures
 * open the breaker. Open: no call goes through for {@code coolDownMicros}; callers use their fallback at once.
 * Half-open: one probe at a time goes through; a success closes the breaker, a failure opens it again.
 *
 * <p>Logs when it opens from closed and when it closes again (with how long it was open); the probes of an outage and
 * their failures only at DEBUG. While failures continue, at most one summary line per
 * {@value #SUMMARY_INTERVAL_MICROS} µs with the number of calls that failed or were short-circuited and the last
 * failure. The first failure, and one that comes longer than that after the last such line, is logged at once with
 * its cause, whether or not it opens the breaker: failures too few in a row to open it are each answered by the
 * fallback too (a 503 for a rule that denies meanwhile), and would otherwise go unexplained. A failure is logged as its
 * {@link LogText#summary summary}: a store's message may quote a key, which a client chose.
 *
 * <p>A {@link Listener} given to the constructor is told of the same two transitions instead of their log lines (the
 * engine's says which rules answer by which failure mode meanwhile): once each, in the order they happen, whatever
 * the number of threads that fail or succeed together.
 */
public final class CircuitBreaker {

    /** Default consecutive failures that open the breaker: {@value}. */
    public static final int DEFAULT_FAILURE_THRESHOLD = 3;
    /** Default time the breaker stays open before a probe: {@value} µs (half a second). */
    public static final long DEFAULT_COOL_DOWN_MICROS = 500_000;
    static final long SUMMARY_INTERVAL_MICROS = 60_000_000;
    private static final System.Logger LOG = System.getLogger(CircuitBreaker.class.getName());

    /** The breaker's state. */
    public enum State { CLOSED, OPEN, HALF_OPEN }

    /**
     * Told when the breaker opens from closed and when it closes again: each transition once, opened and closed in
     * turn, never two at a time. Called on the thread whose call made the transition, holding the breaker's lock for
     * transitions (not the one of its calls): keep it short, and do not call the breaker from it.
     */
    public interface Listener {

        /**
         * The breaker opened from closed: the store is not called until the cool-down has passed.
         *
         * @param nowMicros when, on the breaker's clock
         * @param failures the consecutive failures that opened it (1 for a failed probe of a breaker that another
         *     thread closed meanwhile)
         * @param cause the last failure's cause
         */
        void opened(long nowMicros, int failures, Throwable cause);

        /**
         * The breaker closed again: a call succeeded.
         *
         * @param nowMicros when, on the breaker's clock
         * @param openedAtMicros when it opened, as {@link #opened} was told
         */
        void closed(long nowMicros, long openedAtMicros);
    }

    private final String name;
    private final int failureThreshold;
    private final long coolDownMicros;
    private final TimeSource time;
    private final AtomicReference<State> state = new AtomicReference<>(State.CLOSED);
    private final AtomicInteger consecutiveFailures = new AtomicInteger();
    private final AtomicLong openedAtMicros = new AtomicLong();
    private final AtomicBoolean probing = new AtomicBoolean();
    private final LogThrottle failureLines = new LogThrottle(SUMMARY_INTERVAL_MICROS);
    /** The cause of the last failed call, for the summary line. */
    private volatile Throwable lastFailure;
    /** When the breaker last opened from closed: the start of the outage its "recovered" line reports. */
    private volatile long outageStartedMicros;
    /** Told of the transitions instead of the log; null: they are logged here. */
    private final Listener listener;
    /** Held while the state goes from closed to open or back, so that the listener hears them in their order. */
    private final Object transitions = new Object();

    public CircuitBreaker(String name, int failureThreshold, long coolDownMicros, TimeSource time) {
        this(name, failureThreshold, coolDownMicros, time, null);
    }

    /**
     * @param listener told when the breaker opens and closes, instead of the two log lines; null: they are logged
     */
    public CircuitBreaker(String name, int failureThreshold, long coolDownMicros, TimeSource time, Listener listener) {
        if (failureThreshold < 1 || coolDownMicros < 1) {
            throw new io.sluice.core.config.ConfigException("circuit breaker " + name
                    + ": failure threshold and cool-down must be positive, got " + failureThreshold + " and "
                    + coolDownMicros + " µs");
        }
        this.name = name;
        this.failureThreshold = failureThreshold;
        this.coolDownMicros = coolDownMicros;
        this.time = time;
        this.listener = listener;
    }

    /** @return whether a call may go to the store now; when true, report its result with {@link #onSuccess}/{@link #onFailure} */
    public boolean tryAcquire() {
        State s = state.get();
        if (s == State.CLOSED) {
            return true;
        }
        long now = time.nowMicros();
        if (s == State.OPEN && now - openedAtMicros.get() >= coolDownMicros && state.compareAndSet(State.OPEN, State.HALF_OPEN)) {
            // every cool-down of an outage: at DEBUG, or a long outage would log two lines each cool-down
            LOG.log(Level.DEBUG, "rate-limit store " + name + ": circuit half-open, probing");
        }
        if (state.get() == State.HALF_OPEN && probing.compareAndSet(false, true)) {
            return true;
        }
        countFailure(now);
        return false;
    }

    /** Records a successful call: closes the breaker. */
    public void onSuccess() {
        // called for every decision: write only what changes, so that the threads of a healthy store share these
        // fields read-only instead of bouncing their cache lines between cores (an unchanged write, or one skipped,
        // is the same as the write happening just before any concurrent one)
        if (consecutiveFailures.get() != 0) {
            consecutiveFailures.set(0);
        }
        if (probing.get()) {
            probing.set(false);
        }
        if (state.get() == State.CLOSED) {
            return;
        }
        synchronized (transitions) {
            if (state.getAndSet(State.CLOSED) == State.CLOSED) {
                return;             // another thread closed it first, and said so
            }
            long now = time.nowMicros();
            if (listener != null) {
                listener.closed(now, outageStartedMicros);
                return;
            }
            long open = now - outageStartedMicros;
            LOG.log(Level.INFO, "rate-limit store " + name + ": recovered, circuit closed after "
                    + (open >= 10_000_000 ? open / 1_000_000 + " s" : open / 1_000 + " ms") + " open");
        }
    }

    /** Records a failed call: opens the breaker after the threshold, or at once when half-open. */
    public void onFailure(Throwable cause) {
        long now = time.nowMicros();
        lastFailure = cause;
        countFailure(now);
        boolean wasProbe = probing.getAndSet(false);
        if (wasProbe || consecutiveFailures.incrementAndGet() >= failureThreshold) {
            openedAtMicros.set(now);
            State before = open(now, wasProbe ? 1 : failureThreshold, cause);
            if (before == State.HALF_OPEN) {
                LOG.log(Level.DEBUG, "rate-limit store " + name + ": probe failed, circuit open for "
                        + coolDownMicros / 1000 + " ms: " + LogText.summary(cause));
            }
        }
    }

    /**
     * Opens the breaker; from closed, that is the start of an outage, logged or told to the listener.
     *
     * @return the state before
     */
    private State open(long now, int failures, Throwable cause) {
        synchronized (transitions) {
            State before = state.getAndSet(State.OPEN);
            if (before != State.CLOSED) {
                return before;
            }
            outageStartedMicros = now;
            if (listener != null) {
                listener.opened(now, failures, cause);
            } else {
                LOG.log(Level.WARNING, "rate-limit store " + name + ": circuit open after " + failureThreshold
                        + " consecutive failures, probing every " + coolDownMicros / 1000 + " ms until a call succeeds"
                        + " (failures are summarized once a minute): " + LogText.summary(cause));
            }
            return before;
        }
    }

    /** @return the current state */
    public State state() {
        return state.get();
    }

    private void countFailure(long now) {
        LogThrottle.Pass pass = failureLines.pass(now);
        if (pass != null) {
            LOG.log(Level.WARNING, "rate-limit store " + name + ": " + (pass.sinceMicros() < 0
                    ? "a call failed; the rules' on-store-failure modes answer (failures are counted and logged at"
                            + " most once a minute): " + LogText.summary(lastFailure)
                    : pass.held() + 1 + " calls failed or short-circuited in the last " + pass.sinceMicros() / 1_000_000
                            + " s; the last failure: " + LogText.summary(lastFailure)));
        }
    }
}
