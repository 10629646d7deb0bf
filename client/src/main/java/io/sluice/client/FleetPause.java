package io.sluice.client;

import io.sluice.core.Engine;
import io.sluice.core.Limiter;
import io.sluice.core.Rule;
import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import io.sluice.core.time.TimeSource;
import java.time.Duration;

/**
 * A key's pause, kept in the engine's store so that every node sharing it stops, not only the one the remote told: a
 * GCRA limit of its own ({@code <name>.paused}) counted in milliseconds, whose theoretical arrival time is the end of the
 * pause. Pausing for {@code d} spends the milliseconds by which {@code d} outlasts the pause already there; asking
 * whether the key is paused is a check of cost 0, which consumes nothing and reads the pause's end as its reset. Its
 * capacity is the cap ({@link OutboundLimit#maxRemotePause()}), so no pause, however many nodes extend it, can outlast
 * the cap from now. Two nodes told at the same instant may each extend it, so a pause can end later than the remote
 * said, never later than the cap.
 *
 * <p>The node also remembers its own latest pause, so that it stops even while the store cannot answer (the pause's
 * own checks then answer as {@link Rule.FailureMode#ALLOW allow}: no pause known from others).
 */
final class FleetPause {

    /** The suffix of the pause's limit name: {@value}. */
    static final String SUFFIX = ".paused";

    private final Limiter paused;
    private final String key;
    private final TimeSource time;
    private final long capMicros;
    /** The end of the latest pause this node was told of, epoch µs. */
    private volatile long localUntil;

    FleetPause(Engine engine, OutboundLimit limit) {
        long capMillis = limit.maxRemotePause().toMillis();
        Policy ms = Policy.of(Algorithm.GCRA, capMillis, Duration.ofMillis(capMillis));
        this.paused = engine.limiter(limit.name() + SUFFIX, ms, Rule.FailureMode.ALLOW);
        this.key = limit.key();
        this.time = engine.timeSource();
        this.capMicros = capMillis * 1000;
    }

    /** @return the time left of the key's pause, in µs: the longer of the store's and this node's; 0 when none */
    long remainingMicros() {
        long now = time.nowMicros();
        Outcome o = paused.tryAcquire(key, 0);
        long fleet = o.allowed() ? o.resetAfterMicros() : 0;
        return Math.max(fleet, localUntil - now);
    }

    /** Pauses the key for {@code micros} from now (at most the cap) on every node: a running pause ends no sooner. */
    void pause(long micros) {
        long wait = Math.min(micros, capMicros);
        if (wait <= 0) {
            return;
        }
        long now = time.nowMicros();
        synchronized (this) {
            localUntil = Math.max(localUntil, now + wait);
        }
        Outcome o = paused.tryAcquire(key, 0);
        long there = o.allowed() ? o.resetAfterMicros() : 0;
        // whole milliseconds, rounded up; but never past the capacity, which would deny the spend, extending nothing
        // on any node (a pause at the cap, with a running one's end off a whole millisecond, would round past it)
        long more = Math.min(-Math.floorDiv(there - wait, 1000), Math.floorDiv(capMicros - there, 1000));
        if (more > 0) {
            paused.tryAcquire(key, more);
        }
    }

    /** @return the cap, µs */
    long capMicros() {
        return capMicros;
    }
}
