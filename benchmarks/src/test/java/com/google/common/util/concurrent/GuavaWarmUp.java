package com.google.common.util.concurrent;

import java.util.concurrent.TimeUnit;

/**
 * Guava's own {@code SmoothWarmingUp} rate limiter on a clock the test drives: the reference Sluice's warm-up is
 * checked against. Lives in Guava's package only to reach its package-private test factory.
 */
public final class GuavaWarmUp {

    private final RateLimiter limiter;
    private long nowMicros;

    /**
     * @param startMicros the time the limiter is created (a fresh key's first request in Sluice)
     */
    public GuavaWarmUp(double permitsPerSecond, long warmupMicros, double coldFactor, long startMicros) {
        this.nowMicros = startMicros;
        RateLimiter.SleepingStopwatch clock = new RateLimiter.SleepingStopwatch() {
            @Override
            protected long readMicros() {
                return nowMicros;
            }

            @Override
            protected void sleepMicrosUninterruptibly(long micros) {
                if (micros > 0) {
                    throw new AssertionError("tryAcquire without a timeout never sleeps, asked for " + micros + " µs");
                }
            }
        };
        this.limiter = RateLimiter.create(permitsPerSecond, warmupMicros, TimeUnit.MICROSECONDS, coldFactor, clock);
    }

    /** @return the time at which Guava lets the next request pass, seen at {@code atMicros}: its next free ticket */
    public long nextFreeMicros(long atMicros) {
        nowMicros = atMicros;
        return limiter.queryEarliestAvailable(atMicros);
    }

    /** {@code tryAcquire(permits)} at {@code atMicros}. */
    public boolean tryAcquire(long atMicros, int permits) {
        nowMicros = atMicros;
        return limiter.tryAcquire(permits);
    }
}
