package io.sluice.benchmarks;

/** The key space of the keyed benchmarks and of the memory probe. */
final class Keys {

    /** Distinct keys in the keyed benchmarks: {@value}. */
    static final int COUNT = 100_000;

    private Keys() {}

    /** @return {@code client-0 .. client-(n-1)}, each a fresh string */
    static String[] distinct(int n) {
        String[] keys = new String[n];
        for (int i = 0; i < n; i++) {
            keys[i] = "client-" + i;
        }
        return keys;
    }

    /**
     * A uniformly random index in {@code [0, bound)} from a xorshift64 state, by multiply-high instead of a
     * division (a few cycles, the same for every contender).
     */
    static int index(long random, int bound) {
        return (int) (((random >>> 32) * bound) >>> 32);
    }

    /** One step of xorshift64; never returns 0 for a non-zero seed. */
    static long next(long x) {
        x ^= x << 13;
        x ^= x >>> 7;
        x ^= x << 17;
        return x;
    }
}
