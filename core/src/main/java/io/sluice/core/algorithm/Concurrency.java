package io.sluice.core.algorithm;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import java.util.Arrays;

/**
 * Concurrency: at most {@code N} (the limit) units in flight per key. Acquire takes a lease, release frees it, and a
 * lease that is never released expires after the policy's lease timeout, so a lost release (a crashed node, a bug)
 * cannot leak capacity for ever.
 *
 * <p><b>State per key:</b> the leases: id, weight and expiry time, in the order they were taken.
 *
 * <p><b>Rule:</b> leases with {@code expiry <= now} are dropped; a lease of weight {@code c <= N} is taken when
 * {@code sum(weights) + c <= N} and expires at {@code now + leaseTimeout}. A denied request may retry when enough
 * leases have expired, at the latest (a release usually comes much sooner). Reset-after is always 0: capacity comes
 * back as requests complete, not on a timer.
 *
 * <p><b>Worked example:</b> {@code 2 concurrent lease 30s}: A and B take leases at 0 s; C is denied; B is released at
 * 1 s and C passes; if A's node dies, A's lease expires at 30 s.
 */
public final class Concurrency implements Definition {

    /**
     * Lease state per key; arrays are never modified after construction.
     *
     * @param ids lease ids
     * @param weights each lease's weight
     * @param expiries each lease's expiry time in epoch microseconds
     */
    public record State(String[] ids, long[] weights, long[] expiries) {
        /** @return the number of leases held */
        public int size() {
            return ids.length;
        }

        /** @return the total weight in flight */
        public long inFlight() {
            long sum = 0;
            for (long w : weights) {
                sum += w;
            }
            return sum;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof State s && Arrays.equals(ids, s.ids) && Arrays.equals(weights, s.weights)
                    && Arrays.equals(expiries, s.expiries);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(ids) * 31 + Arrays.hashCode(expiries);
        }

        @Override
        public String toString() {
            return "State[ids=" + Arrays.toString(ids) + ", weights=" + Arrays.toString(weights) + ", expiries="
                    + Arrays.toString(expiries) + "]";
        }
    }

    // the store's view (Definition); the Redis twin is concurrency.lua

    @Override
    public Algorithm algorithm() {
        return Algorithm.CONCURRENCY;
    }

    @Override
    public char code() {
        return 'c';
    }

    @Override
    public boolean inline() {
        return false;
    }

    @Override
    public void arguments(Policy policy, Arguments out) {
        out.add(policy.limit());
        out.add(policy.periodMicros());     // its lease timeout
    }

    /** The id of the lease the check takes. */
    @Override
    public int checkArgumentCount() {
        return 1;
    }

    @Override
    public void checkArguments(String key, String leaseId, Policy policy, Arguments out) {
        out.add(leaseId);
    }

    /** Takes a lease {@code leaseId} of weight {@code cost} when the weight in flight leaves room for it. */
    public Step<State> acquire(State state, long nowMicros, long cost, Policy policy, String leaseId) {
        long limit = policy.limit();
        State live = purge(state, nowMicros);
        long inFlight = live == null ? 0 : live.inFlight();
        long reset = 0;   // capacity comes back as requests complete, not on a timer
        if (cost > limit) {
            return new Step<>(state, Outcome.deny(limit, Math.max(0, limit - inFlight), reset, Outcome.NEVER));
        }
        if (inFlight + cost > limit) {
            return new Step<>(state, Outcome.deny(limit, Math.max(0, limit - inFlight), reset,
                    freedAt(live, inFlight + cost - limit) - nowMicros));
        }
        if (cost == 0) {
            return new Step<>(state, Outcome.allow(limit, Math.max(0, limit - inFlight), reset));
        }
        long expiry = nowMicros + policy.periodMicros();      // the lease timeout
        int n = live == null ? 0 : live.size();
        String[] ids = live == null ? new String[1] : Arrays.copyOf(live.ids(), n + 1);
        long[] weights = live == null ? new long[1] : Arrays.copyOf(live.weights(), n + 1);
        long[] expiries = live == null ? new long[1] : Arrays.copyOf(live.expiries(), n + 1);
        ids[n] = leaseId;
        weights[n] = cost;
        expiries[n] = expiry;
        return new Step<>(new State(ids, weights, expiries),
                Outcome.allow(limit, limit - inFlight - cost, reset));
    }

    /** Frees lease {@code leaseId}; an unknown lease changes nothing. Returns null when no lease is left. */
    public State release(State state, long nowMicros, String leaseId) {
        State live = purge(state, nowMicros);
        if (live == null) {
            return null;
        }
        int at = Arrays.asList(live.ids()).indexOf(leaseId);
        if (at < 0) {
            return live;
        }
        if (live.size() == 1) {
            return null;
        }
        return new State(remove(live.ids(), at), remove(live.weights(), at), remove(live.expiries(), at));
    }

    /** Time until the last lease expires, at least 1. */
    public long ttlMicros(State state, long nowMicros, Policy policy) {
        return state == null || state.size() == 0 ? 1 : Math.max(1, max(state.expiries()) - nowMicros);
    }

    /** The leases that have not expired at {@code now}; null when none. */
    private static State purge(State state, long nowMicros) {
        if (state == null) {
            return null;
        }
        int keep = 0;
        for (long e : state.expiries()) {
            if (e > nowMicros) {
                keep++;
            }
        }
        if (keep == state.size()) {
            return state;
        }
        if (keep == 0) {
            return null;
        }
        String[] ids = new String[keep];
        long[] weights = new long[keep];
        long[] expiries = new long[keep];
        for (int i = 0, j = 0; i < state.size(); i++) {
            if (state.expiries()[i] > nowMicros) {
                ids[j] = state.ids()[i];
                weights[j] = state.weights()[i];
                expiries[j++] = state.expiries()[i];
            }
        }
        return new State(ids, weights, expiries);
    }

    /** The time at which leases of total weight {@code needed} will have expired, earliest expiries first. */
    private static long freedAt(State live, long needed) {
        long[][] byExpiry = new long[live.size()][];
        for (int i = 0; i < live.size(); i++) {
            byExpiry[i] = new long[] {live.expiries()[i], live.weights()[i]};
        }
        Arrays.sort(byExpiry, (a, b) -> Long.compare(a[0], b[0]));
        long freed = 0;
        for (long[] lease : byExpiry) {
            freed += lease[1];
            if (freed >= needed) {
                return lease[0];
            }
        }
        return byExpiry[byExpiry.length - 1][0];
    }

    private static long max(long[] values) {
        long m = Long.MIN_VALUE;
        for (long v : values) {
            m = Math.max(m, v);
        }
        return m;
    }

    private static String[] remove(String[] a, int at) {
        String[] out = new String[a.length - 1];
        System.arraycopy(a, 0, out, 0, at);
        System.arraycopy(a, at + 1, out, at, a.length - at - 1);
        return out;
    }

    private static long[] remove(long[] a, int at) {
        long[] out = new long[a.length - 1];
        System.arraycopy(a, 0, out, 0, at);
        System.arraycopy(a, at + 1, out, at, a.length - at - 1);
        return out;
    }
}
