package io.sluice.core.algorithm;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import io.sluice.core.policy.SlidingLogSettings;
import java.util.Arrays;

/**
 * Sliding log: exact. One timestamp per admitted unit of cost; a request passes when the timestamps in the last
 * period {@code P}, plus its cost, stay within the limit {@code L}.
 *
 * <p><b>State per key:</b> the timestamps, oldest first, and the time of the newest entry. An entry at {@code t}
 * counts while {@code now < t + P}. Only the newest {@code L} entries are kept: whether the window holds {@code L} or
 * more is decided by the {@code L}-th newest alone, so memory stays bounded by the limit even when rejected attempts
 * are counted.
 *
 * <p><b>Rule:</b> with {@code n} live entries {@code t[0] <= ... <= t[n-1]}, a request of cost {@code c <= L} passes when
 * {@code n + c <= L} and, with a minimum interval {@code g}, {@code now >= t[n-1] + g}. Otherwise it may retry after
 * {@code max(t[n + c - L - 1] + P, t[n-1] + g) - now}, and remaining is {@code L - n}, or 0 while the minimum
 * interval has not passed (nothing can be used before it has, as a later denial from the engine's memory says too). With {@code countRejected} a denied attempt is recorded too
 * (c entries at {@code now}), so a client hammering faster than the limit stays blocked until it pauses; the
 * retry-after then already accounts for the recorded attempt.
 *
 * <p><b>Worked example:</b> {@code 10/1m min-interval 2s}: requests at 0 s and 1 s: the second is denied (retry 1 s);
 * ten requests 2 s apart from 0 s pass, the eleventh at 20 s is denied until 60 s, when the first entry leaves.
 *
 * <p>A clock that goes backwards is treated as the newest time seen.
 */
final class SlidingLog implements RateAlgorithm<SlidingLog.State>, Definition {

    private static final long[] EMPTY = new long[0];

    /**
     * @param entries timestamps, oldest first; never modified after construction
     * @param newestMicros the newest entry's time (kept when entries age out, for the minimum interval)
     */
    record State(long[] entries, long newestMicros) {
        @Override
        public boolean equals(Object o) {
            return o instanceof State s && s.newestMicros == newestMicros && Arrays.equals(s.entries, entries);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(entries) * 31 + Long.hashCode(newestMicros);
        }

        @Override
        public String toString() {
            return "State[entries=" + Arrays.toString(entries) + ", newestMicros=" + newestMicros + "]";
        }
    }

    // the store's view (Definition); the Redis twin is sliding-log.lua

    @Override
    public Algorithm algorithm() {
        return Algorithm.SLIDING_LOG;
    }

    @Override
    public char code() {
        return 'l';
    }

    @Override
    public boolean inline() {
        return false;
    }

    @Override
    public void arguments(Policy policy, Arguments out) {
        out.add(policy.limit());
        out.add(policy.periodMicros());
        SlidingLogSettings s = policy.settings(SlidingLogSettings.class);
        out.add(s.minIntervalMicros());
        out.add(s.countRejected() ? 1 : 0);
    }

    /** Members are named by the request's id, so that two requests at the same microsecond add two members. */
    @Override
    public boolean namesMembers() {
        return true;
    }

    @Override
    public Step<State> step(State state, long nowMicros, long cost, Policy policy) {
        long limit = policy.limit();
        long period = policy.periodMicros();
        long now = state == null ? nowMicros : Math.max(nowMicros, state.newestMicros());
        long[] live = live(state, now, period);
        long n = live.length;
        long reset = n == 0 ? 0 : live[live.length - 1] + period - nowMicros;
        if (cost > limit) {
            return new Step<>(state, Outcome.deny(limit, Math.max(0, limit - n), reset, Outcome.NEVER));
        }
        SlidingLogSettings s = policy.settings(SlidingLogSettings.class);
        long gapUntil = state == null || s.minIntervalMicros() == 0 ? Long.MIN_VALUE
                : state.newestMicros() + s.minIntervalMicros();
        boolean gapOk = cost == 0 || now >= gapUntil;
        if (n + cost <= limit && gapOk) {
            if (cost == 0) {
                return new Step<>(state, Outcome.allow(limit, Math.max(0, limit - n), reset));
            }
            State after = new State(append(live, now, cost, limit), now);
            return new Step<>(after, Outcome.allow(limit, limit - n - cost, now + period - nowMicros));
        }
        long retryAt;
        if (s.countRejected()) {
            long[] recorded = append(live, now, cost, limit);
            retryAt = Math.max(fitsAt(recorded, cost, limit, period), s.minIntervalMicros() > 0
                    ? now + s.minIntervalMicros() : Long.MIN_VALUE);
            reset = now + period - nowMicros;
        } else {
            retryAt = Math.max(fitsAt(live, cost, limit, period), gapUntil);
        }
        // denied by the minimum interval: nothing can be used before it passes, whatever room the window has
        return new Step<>(state, Outcome.deny(limit, gapOk ? Math.max(0, limit - n) : 0, reset, retryAt - nowMicros));
    }

    @Override
    public State onDenied(State state, long nowMicros, long cost, Policy policy) {
        if (!policy.settings().recordsDenials() || cost == 0 || cost > policy.limit()) {
            return state;
        }
        long now = state == null ? nowMicros : Math.max(nowMicros, state.newestMicros());
        return new State(append(live(state, now, policy.periodMicros()), now, cost, policy.limit()), now);
    }

    @Override
    public long ttlMicros(State state, long nowMicros, Policy policy) {
        if (state == null) {
            return 1;
        }
        long until = Math.max(state.newestMicros() + policy.periodMicros(),
                state.newestMicros() + policy.settings(SlidingLogSettings.class).minIntervalMicros());
        return Math.max(1, until - nowMicros);
    }

    /** The entries still inside the window {@code (now - P, now]}. */
    private static long[] live(State state, long now, long period) {
        if (state == null) {
            return EMPTY;
        }
        long[] entries = state.entries();
        int first = 0;
        while (first < entries.length && entries[first] + period <= now) {
            first++;
        }
        return first == 0 ? entries : Arrays.copyOfRange(entries, first, entries.length);
    }

    /** {@code live} plus {@code cost} entries at {@code now}, keeping the newest {@code limit}. */
    private static long[] append(long[] live, long now, long cost, long limit) {
        int keep = (int) Math.min(live.length + cost, limit);
        long[] out = new long[keep];
        int fromLive = (int) Math.max(0, keep - cost);
        System.arraycopy(live, live.length - fromLive, out, 0, fromLive);
        Arrays.fill(out, fromLive, keep, now);
        return out;
    }

    /** When enough of the oldest entries have left for {@code cost} more to fit. */
    private static long fitsAt(long[] live, long cost, long limit, long period) {
        long excess = live.length + cost - limit;
        return excess <= 0 ? Long.MIN_VALUE : live[(int) excess - 1] + period;
    }
}
