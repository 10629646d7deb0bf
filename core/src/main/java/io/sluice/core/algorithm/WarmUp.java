package io.sluice.core.algorithm;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import io.sluice.core.policy.WarmUpSettings;

/**
 * Warm-up: Guava's {@code SmoothWarmingUp}, step for step. A cold limiter admits requests at the cold interval
 * ({@code coldFactor} times the stable one, 3 by default) and speeds up to the stable interval {@code P / L} as permits
 * are used over the warm-up period; left idle, it cools down again.
 *
 * <p><b>State per key:</b> the stored permits {@code s} (a double, as in Guava) and the time {@code next} at which the
 * next request may pass. A fresh key is cold: {@code s = maxPermits}, {@code next = now}.
 *
 * <p><b>Rule</b> (doubles; the same operations in the same order as Guava and the Lua twin), with
 * {@code stable = P / L}, {@code cold = stable * coldFactor}, {@code W} the warm-up period:
 * <pre>
 * threshold  = 0.5 * W / stable
 * maxPermits = threshold + 2.0 * W / (stable + cold)
 * slope      = (cold - stable) / (maxPermits - threshold)
 * coolDown   = W / maxPermits
 * </pre>
 * A request passes when {@code next <= now} ("pay later", as Guava's {@code tryAcquire}). It then resyncs
 * ({@code s = min(maxPermits, s + (now - next) / coolDown)}, {@code next = now}), spends
 * {@code t = min(c, s)} stored permits and {@code c - t} fresh ones, and moves {@code next} by the time they cost: the
 * area under the line from {@code stable} (at {@code threshold}) to {@code cold} (at {@code maxPermits}) for the stored
 * permits above the threshold, {@code stable} for each of the others. A denied request may retry after
 * {@code next - now}. A single request may cost at most the limit {@code L}; more is {@link Outcome#NEVER}.
 *
 * <p><b>Worked example:</b> {@code 10/1s warm-up 2s} (stable 100 ms, cold 300 ms): from cold, requests retried as
 * soon as they may pass are 290 ms apart, then 20 ms closer each time (270, 250, ..., 110 ms), and after 2 s of steady
 * use 100 ms apart.
 *
 * <p>Remaining is 1 when a request could pass right now, else 0 (warm-up never bursts); reset-after is the time until
 * the next request may pass.
 */
final class WarmUp implements RateAlgorithm<WarmUp.State>, Definition {

    /**
     * @param storedPermits Guava's stored permits (more is colder)
     * @param nextFreeMicros the earliest time the next request may pass
     */
    record State(double storedPermits, long nextFreeMicros) {}

    // the store's view (Definition); the Redis twin is warm-up.lua

    @Override
    public Algorithm algorithm() {
        return Algorithm.WARM_UP;
    }

    @Override
    public char code() {
        return 'w';
    }

    @Override
    public boolean inline() {
        return false;
    }

    @Override
    public void arguments(Policy policy, Arguments out) {
        out.add(policy.limit());
        out.add(policy.periodMicros());
        WarmUpSettings s = policy.settings(WarmUpSettings.class);
        out.add(s.warmupMicros());
        out.add(s.coldFactor());
    }

    /** The derived numbers of a policy, as Guava's {@code doSetRate} computes them. */
    private record Curve(double stable, double threshold, double maxPermits, double slope, double coolDown) {
        static Curve of(Policy policy) {
            double stable = (double) policy.periodMicros() / (double) policy.limit();
            WarmUpSettings s = policy.settings(WarmUpSettings.class);
            double cold = stable * s.coldFactor();
            double warmup = (double) s.warmupMicros();
            double threshold = 0.5 * warmup / stable;
            double maxPermits = threshold + 2.0 * warmup / (stable + cold);
            double slope = (cold - stable) / (maxPermits - threshold);
            return new Curve(stable, threshold, maxPermits, slope, warmup / maxPermits);
        }

        double permitsToTime(double permits) {
            return stable + permits * slope;
        }

        long storedPermitsToWaitTime(double storedPermits, double permitsToTake) {
            double above = storedPermits - threshold;
            long micros = 0;
            if (above > 0.0) {
                double take = Math.min(above, permitsToTake);
                double length = permitsToTime(above) + permitsToTime(above - take);
                micros = (long) (take * length / 2.0);
                permitsToTake -= take;
            }
            micros += (long) (stable * permitsToTake);
            return micros;
        }
    }

    @Override
    public Step<State> step(State state, long nowMicros, long cost, Policy policy) {
        long limit = policy.limit();
        long next = state == null ? nowMicros : state.nextFreeMicros();
        if (cost > limit) {
            return new Step<>(state, Outcome.deny(limit, next <= nowMicros ? 1 : 0, Math.max(0, next - nowMicros),
                    Outcome.NEVER));
        }
        if (cost == 0) {
            return new Step<>(state, Outcome.allow(limit, next <= nowMicros ? 1 : 0, Math.max(0, next - nowMicros)));
        }
        if (next > nowMicros) {
            return new Step<>(state, Outcome.deny(limit, 0, next - nowMicros, next - nowMicros));
        }
        Curve curve = Curve.of(policy);
        double stored = state == null ? curve.maxPermits() : state.storedPermits();
        if (nowMicros > next) {
            stored = Math.min(curve.maxPermits(), stored + (double) (nowMicros - next) / curve.coolDown());
            next = nowMicros;
        }
        double spend = Math.min((double) cost, stored);
        double fresh = (double) cost - spend;
        long wait = curve.storedPermitsToWaitTime(stored, spend) + (long) (fresh * curve.stable());
        State after = new State(stored - spend, next + wait);
        long until = after.nextFreeMicros() - nowMicros;
        return new Step<>(after, Outcome.allow(limit, until <= 0 ? 1 : 0, Math.max(0, until)));
    }

    /** Until the limiter is fully cold again, when its state equals a fresh key's. */
    @Override
    public long ttlMicros(State state, long nowMicros, Policy policy) {
        if (state == null) {
            return 1;
        }
        Curve curve = Curve.of(policy);
        double coolFor = (curve.maxPermits() - state.storedPermits()) * curve.coolDown();
        long until = state.nextFreeMicros() + (long) Math.ceil(coolFor) - nowMicros;
        return Math.max(1, until);
    }
}
