package io.sluice.redis;

import io.sluice.core.Limiter;
import java.time.Duration;

/**
 * The fleet's pace of an {@link AdmissionQueue}: a limiter and the key its workers take permits of.
 *
 * @param limiter a limiter of an engine whose store the fleet shares
 * @param key the key of {@code limiter} each entry takes one permit of
 */
record QueuePace(Limiter limiter, String key) {

    /** Takes one permit, waiting at most {@code wait}. @return whether it was taken */
    boolean tryAcquire(Duration wait) throws InterruptedException {
        return limiter.tryAcquire(key, 1, wait);
    }

    /**
     * @return how long the fleet's pace needs for {@code places} entries to be processed: the pace policy's interval
     *     between two permits times {@code places}, at least one interval
     */
    Duration retryAfter(long places) {
        long interval = Math.max(1, limiter.policy().intervalMicros());
        return Duration.ofNanos(Math.min(Long.MAX_VALUE / 1_000, Math.max(1, places) * interval) * 1_000);
    }
}
