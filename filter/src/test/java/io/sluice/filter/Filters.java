package io.sluice.filter;

import io.sluice.core.time.TimeSource;

/** Reaches the servlet filter's clock seam from the JAX-RS tests (in this module's test jar: same package, class path only). */
public final class Filters {

    private Filters() {}

    /** @return a servlet filter deciding on {@code time} */
    public static RateLimitFilter onClock(TimeSource time) {
        return new RateLimitFilter(time);
    }

    /** @return a servlet filter deciding on {@code time}, holding at most {@code maxQueued} requests queued at once */
    public static RateLimitFilter onClock(TimeSource time, int maxQueued) {
        return new RateLimitFilter(time, null, maxQueued);
    }
}
