package io.sluice.core.algorithm;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.LeakyBucketSettings;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;

/**
 * Leaky bucket: a level that drains at a constant rate, one unit every {@code I = P / L} microseconds, in a bucket of
 * capacity {@code C} (the burst, else the limit). As a <em>meter</em> it rejects what does not fit; as a
 * <em>queue</em> (a policy with {@code max-wait}) it admits what fits and makes it wait its turn, so requests leave
 * at exactly the rate, like nginx {@code limit_req}.
 *
 * <p><b>State per key:</b> one number, the time {@code E} at which the bucket will be empty; the level at {@code now}
 * is {@code ceil((E - now) / I)}.
 *
 * <p><b>Rule:</b> {@code base = max(E, now)}; {@code newE = base + c * I}. The request fits when
 * {@code newE - now <= C * I}. A meter admits it at once. A queue admits it after
 * {@code delay = max(0, base - now - d * I)} (its place in line, less the {@code delay} threshold {@code d} of
 * requests that pass without waiting), provided {@code delay <= max-wait}. A request that does not fit, or would wait
 * too long, is denied, consumes nothing, and may retry after
 * {@code max(newE - C * I, base - d * I - maxWait) - now} (the second term only for a queue); as a meter that is the
 * delay after which it would fit.
 *
 * <p><b>Worked example:</b> {@code 2/1s burst 3 max-wait 5s} ({@code I} = 500 ms): four requests at 0 ms: the first
 * leaves at once, the second after 500 ms, the third after 1 s; the fourth does not fit and may retry after 500 ms.
 *
 * <p>As a meter the leaky bucket decides exactly like {@link Gcra} (the two are the same algorithm seen from two
 * sides); choose it for the queue.
 */
final class LeakyBucket implements RateAlgorithm<LeakyBucket.State>, Definition {

    /** @param emptyAtMicros the time at which the bucket will be empty */
    record State(long emptyAtMicros) {}

    // the store's view (Definition); the Redis twin is leaky-bucket.lua

    @Override
    public Algorithm algorithm() {
        return Algorithm.LEAKY_BUCKET;
    }

    @Override
    public char code() {
        return 'k';
    }

    @Override
    public boolean inline() {
        return true;
    }

    @Override
    public void arguments(Policy policy, Arguments out) {
        out.add(policy.capacity());
        out.add(policy.intervalMicros());
        out.add(policy.maxWaitMicros());
        // above the capacity it delays nothing
        out.add(policy.settings(LeakyBucketSettings.class).delayThreshold(policy.limit()));
    }

    @Override
    public Step<State> step(State state, long nowMicros, long cost, Policy policy) {
        long interval = policy.intervalMicros();
        long capacity = policy.capacity();
        long full = capacity * interval;
        long base = state == null ? nowMicros : Math.max(state.emptyAtMicros(), nowMicros);
        if (cost > capacity) {
            return new Step<>(state, Outcome.deny(capacity, remaining(nowMicros, full, base, interval), base - nowMicros,
                    Outcome.NEVER));
        }
        long newEmpty = base + cost * interval;
        if (cost == 0) {
            return new Step<>(state, Outcome.allow(capacity, remaining(nowMicros, full, base, interval), base - nowMicros));
        }
        long fitsAt = newEmpty - full;
        long delay = 0;
        long retryAt = fitsAt;
        if (policy.queues()) {
            // a threshold above the capacity delays nothing, as the capacity does; capped so that it cannot overflow
            long threshold = policy.settings(LeakyBucketSettings.class).delayThreshold(policy.limit());
            delay = Math.max(0, base - nowMicros - threshold * interval);
            retryAt = Math.max(fitsAt, base - threshold * interval - policy.maxWaitMicros());
        }
        if (fitsAt <= nowMicros && delay <= policy.maxWaitMicros()) {
            return new Step<>(new State(newEmpty), new Outcome(true, capacity,
                    remaining(nowMicros, full, newEmpty, interval), newEmpty - nowMicros, 0, delay));
        }
        return new Step<>(state, Outcome.deny(capacity, remaining(nowMicros, full, base, interval), base - nowMicros,
                retryAt - nowMicros));
    }

    private static long remaining(long nowMicros, long full, long emptyAt, long interval) {
        return Math.max(0, Math.floorDiv(nowMicros + full - emptyAt, interval));
    }

    @Override
    public long ttlMicros(State state, long nowMicros, Policy policy) {
        return state == null ? 1 : Math.max(1, state.emptyAtMicros() - nowMicros);
    }
}
