package io.sluice.core.algorithm;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Policy;
import java.util.List;

/**
 * The registration of every algorithm: the stores' only way in to this package. Adding an algorithm is its constant in
 * {@link Algorithm} (its public name and the rules of its settings), its class (its step and its {@link Definition};
 * a {@link PrimitiveAlgorithm} too when its state fits in a {@link Slots}), its Lua fragment beside the class, and one
 * line in {@link #ALL}.
 */
public final class Algorithms {

    private static final Concurrency CONCURRENCY = new Concurrency();

    /** Every algorithm, in the order the Redis script tries their codes: the most common first. */
    private static final List<Definition> ALL = List.of(
            new Gcra(),
            new TokenBucket(),
            new FixedWindow(),
            new LeakyBucket(),
            new SlidingWindowCounter(),
            new WarmUp(),
            new SlidingLog(),
            CONCURRENCY);

    /** The definitions by {@link Algorithm#ordinal()}: a lookup without hashing on every request's path. */
    private static final Definition[] BY_ORDINAL = index(ALL);

    private Algorithms() {}

    /** @return every registered algorithm's definition, in registration order */
    public static List<Definition> all() {
        return ALL;
    }

    /** @return the definition of {@code algorithm}; null for one the engine decides ({@link Algorithm#local()}) */
    public static Definition definition(Algorithm algorithm) {
        return BY_ORDINAL[algorithm.ordinal()];
    }

    /**
     * @return the step function of a rate algorithm
     * @throws IllegalArgumentException for {@link Algorithm#CONCURRENCY}, which takes leases: see {@link #concurrency()}
     */
    @SuppressWarnings("unchecked")
    public static <S> RateAlgorithm<S> rate(Algorithm algorithm) {
        if (definition(algorithm) instanceof RateAlgorithm<?> rate) {
            return (RateAlgorithm<S>) rate;
        }
        if (algorithm.local()) {
            throw new IllegalArgumentException(algorithm + " is decided by the engine, which hands stores a concurrency"
                    + " check in its place");
        }
        throw new IllegalArgumentException(algorithm + " takes leases: use Algorithms.concurrency()");
    }

    /** @return the concurrency algorithm (leases) */
    public static Concurrency concurrency() {
        return CONCURRENCY;
    }

    /**
     * The time a staggered fixed window adds to {@code now} for {@code key}; 0 unless {@code policy.staggered()}:
     * see {@link FixedWindow#staggerOffsetMicros}.
     */
    public static long staggerOffsetMicros(String key, Policy policy) {
        return FixedWindow.staggerOffsetMicros(key, policy);
    }

    /** Every algorithm once, each with a code of its own that is not one of the script's modes. */
    private static Definition[] index(List<Definition> all) {
        Definition[] byOrdinal = new Definition[Algorithm.values().length];
        boolean[] codes = new boolean[128];
        for (Definition d : all) {
            char code = d.code();
            if (code < 'a' || code > 'z' || code == 'b' || code == 'e' || code == 'r' || codes[code]) {
                throw new IllegalStateException("algorithm " + d.algorithm() + ": code '" + code + "' is taken or not"
                        + " a lower-case letter other than b, e and r");
            }
            if (byOrdinal[d.algorithm().ordinal()] != null) {
                throw new IllegalStateException("algorithm " + d.algorithm() + " is registered twice");
            }
            codes[code] = true;
            byOrdinal[d.algorithm().ordinal()] = d;
        }
        return byOrdinal;
    }
}
