package io.sluice.core.policy;

import io.sluice.core.config.ConfigException;

/**
 * The rules of leased permits ({@link Policy#leasedMicros()}): which algorithms lease, and the reserve that keeps a
 * block spent late inside the policy.
 *
 * <p>Why a reserve: a node spends a block within the lease time {@code L} of taking it. In any window {@code [a, b]}
 * the fleet then passes at most the permits leased in {@code [a - L, a)} and not yet spent, plus those taken in
 * {@code [a, b]}. A bucket that can hold at most {@code C - ceil(L / I)} tokens has, at {@code a}, given out in
 * {@code [a - L, a)} plus still holding no more than {@code C} (it refills at most {@code L / I} in that time), so the
 * fleet passes at most {@code C + (b - a) / I}: the envelope of the policy as configured. A fixed window's block ends
 * with its window, which counted it: no reserve.
 */
final class Leasing {

    private Leasing() {}

    /**
     * @param leased the lease time, µs (0: no leasing)
     * @param interval the policy's emission interval, µs
     * @param burst the capacity the settings give
     * @return the permits a leasing GCRA or token bucket holds back, {@code ceil(leased / interval)}; 0 without leasing
     * @throws ConfigException when the algorithm cannot lease, or the reserve leaves no permit
     */
    static long reserve(Algorithm algorithm, long leased, long interval, long burst) {
        if (leased == 0) {
            return 0;
        }
        Bounds.duration("leased", leased, 1, "a lease time");
        if (!algorithm.leases()) {
            throw new ConfigException("leased", PolicyParser.formatDuration(leased), "leased permits apply to gcra,"
                    + " token-bucket and fixed-window, not " + algorithm.id() + ": its permits cannot be"
                    + " counted before they are spent");
        }
        if (algorithm == Algorithm.FIXED_WINDOW) {
            return 0;
        }
        long reserve = (leased + interval - 1) / interval;
        if (reserve >= burst) {
            throw new ConfigException("leased", PolicyParser.formatDuration(leased), "a lease must be shorter than the"
                    + " burst lasts: " + burst + " permits every " + PolicyParser.formatDuration(interval)
                    + " last " + PolicyParser.formatDuration(burst * interval) + ", and a lease keeps its time's worth"
                    + " in reserve; give a shorter lease or a larger burst");
        }
        return reserve;
    }
}
