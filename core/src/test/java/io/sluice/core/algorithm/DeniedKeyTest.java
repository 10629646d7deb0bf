package io.sluice.core.algorithm;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import io.sluice.core.testing.EngineDifferential;
import io.sluice.core.testing.ManualTimeSource;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What a denial tells of its key answers exactly: over random policies and traffic (the clock forwards, sometimes
 * back), each denial's {@link DeniedKey} is asked for random costs at random later times, and whatever it answers is
 * what the algorithm's step answers on the key's real state, field for field; it answers nothing the step would admit.
 * For the algorithms whose state it replays it answers every denial; for the sliding window and log, the cost it
 * denied, until then, when its remaining was one less than the cost.
 */
class DeniedKeyTest {

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"CONCURRENCY", "ADAPTIVE_CONCURRENCY"}, mode = EnumSource.Mode.EXCLUDE)
    void aDeniedKeyAnswersAsTheStepOnTheRealStateOrNotAtAll(Algorithm algorithm) {
        long seed = EngineDifferential.seed();
        Random random = new Random(seed);
        RateAlgorithm<Object> rate = Algorithms.rate(algorithm);
        long answered = 0;
        for (int round = 0; round < 100; round++) {
            Policy p = EngineDifferential.policy(random, algorithm);
            String key = "k" + round;
            long offset = Algorithms.staggerOffsetMicros(key, p);
            Object state = null;
            long now = ManualTimeSource.START_MICROS;
            for (int step = 0; step < 60; step++) {
                now += random.nextInt(10) == 0 ? -random.nextInt(2_000_000) : EngineDifferential.gap(random, p);
                long cost = EngineDifferential.cost(random, p);
                Step<Object> s = rate.step(state, now + offset, cost, p);
                if (s.outcome().allowed()) {
                    state = s.state();
                    continue;
                }
                state = rate.onDenied(state, now + offset, cost, p);
                DeniedKey denied = DeniedKey.of(key, p, cost, s.outcome(), now);
                if (denied == null) {
                    continue;
                }
                for (int ask = 0; ask < 20; ask++) {
                    long span = Math.min(2 * p.periodMicros(), s.outcome().retryAfterMicros() + 2);
                    long later = now + (random.nextBoolean() ? random.nextInt(1_000)
                            : (long) (random.nextDouble() * span));
                    long asked = random.nextInt(3) == 0 ? EngineDifferential.cost(random, p) : cost;
                    Outcome expected = rate.step(state, later + offset, asked, p).outcome();
                    Outcome actual = denied.deny(asked, later);
                    String at = "seed " + seed + " (-Dsluice.seed=" + seed + "), " + p + ", denied cost " + cost
                            + " at " + now + " (" + s.outcome() + "), asked cost " + asked + " " + (later - now)
                            + " µs later";
                    if (actual == null) {
                        assertThat(expected.allowed() || !replays(algorithm) && (asked != cost
                                || later >= denied.untilMicros())).as("unanswered: " + at + ", the step says "
                                + expected).isTrue();
                    } else {
                        assertThat(actual).as(at).isEqualTo(expected);
                        answered++;
                    }
                }
            }
        }
        assertThat(answered).as("denials answered from what a denial tells").isPositive();
    }

    /** @return whether {@link DeniedKey} replays the state of {@code algorithm}, so that it answers every denial */
    private static boolean replays(Algorithm algorithm) {
        return algorithm != Algorithm.SLIDING_WINDOW && algorithm != Algorithm.SLIDING_LOG;
    }
}
