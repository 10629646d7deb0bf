package io.sluice.core.algorithm;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Policy;

/** Finds the step function of each algorithm; the stores' only way in to this package. */
public final class Algorithms {

    private static final FixedWindow FIXED_WINDOW = new FixedWindow();
    private static final SlidingWindowCounter SLIDING_WINDOW = new SlidingWindowCounter();
    private static final SlidingLog SLIDING_LOG = new SlidingLog();
    private static final TokenBucket TOKEN_BUCKET = new TokenBucket();
    private static final LeakyBucket LEAKY_BUCKET = new LeakyBucket();
    private static final Gcra GCRA = new Gcra();
    private static final WarmUp WARM_UP = new WarmUp();
    private static final Concurrency CONCURRENCY = new Concurrency();

    private Algorithms() {}

    /**
     * @return the step function of a rate algorithm
     * @throws IllegalArgumentException for {@link Algorithm#CONCURRENCY}, which takes leases: see {@link #concurrency()}
     */
    @SuppressWarnings("unchecked")
    public static <S> RateAlgorithm<S> rate(Algorithm algorithm) {
        RateAlgorithm<?> a = switch (algorithm) {
            case FIXED_WINDOW -> FIXED_WINDOW;
            case SLIDING_WINDOW -> SLIDING_WINDOW;
            case SLIDING_LOG -> SLIDING_LOG;
            case TOKEN_BUCKET -> TOKEN_BUCKET;
            case LEAKY_BUCKET -> LEAKY_BUCKET;
            case GCRA -> GCRA;
            case WARM_UP -> WARM_UP;
            case CONCURRENCY -> throw new IllegalArgumentException("concurrency takes leases: use Algorithms.concurrency()");
        };
        return (RateAlgorithm<S>) a;
    }

    /** @return the concurrency algorithm (leases) */
    public static Concurrency concurrency() {
        return CONCURRENCY;
    }

    /**
     * The time a staggered fixed window adds to {@code now} for {@code key}: a stable offset in {@code [0, period)}
     * derived from the key, so that all clients do not reset at the same instant. 0 unless {@code policy.staggered()}.
     */
    public static long staggerOffsetMicros(String key, Policy policy) {
        if (!policy.staggered() || policy.algorithm() != Algorithm.FIXED_WINDOW) {
            return 0;
        }
        long h = key.hashCode() * 0x9E3779B97F4A7C15L;   // spread: String.hashCode is weak in the low bits
        return Math.floorMod(h ^ (h >>> 29), policy.periodMicros());
    }
}
