package io.sluice.core.algorithm;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policies;
import io.sluice.core.policy.Policy;
import java.time.Duration;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * The primitive twins answer exactly what the reference steps answer: same outcome, same state written (and only
 * when the reference writes one), same TTL, over random policies and random traffic with clocks that jump backwards.
 */
class PrimitiveStepsTest {

    record Event(long gapMicros, long cost, long backMicros) {}

    record Scenario(Policy policy, long startMicros, List<Event> events) {
        @Override
        public String toString() {
            return policy + " (" + policy.algorithm() + ") from " + startMicros + ": " + events;
        }
    }

    private static final class TestSlots extends Slots {}

    /**
     * A limit or capacity lowered under the same rule while state exists: the twins agree with the reference, remaining
     * is 0 (never negative, which Outcome would reject), and a token bucket holds at most the new capacity at once.
     */
    @Property(tries = 200)
    @SuppressWarnings({"unchecked", "rawtypes"})
    void aLoweredLimitAgreesAndNeverGivesNegativeRemaining(@ForAll("lowered") Algorithm algorithm,
            @ForAll("backs") long backMicros) {
        Policy big = Policy.of(algorithm, 100, Duration.ofMinutes(1));
        Policy small = Policy.of(algorithm, 10, Duration.ofMinutes(1));
        RateAlgorithm reference = Algorithms.rate(algorithm);
        long now = 1_700_000_000_000_000L;
        Step<?> first = reference.step(null, now, 50, big);
        TestSlots slots = new TestSlots();
        assertThat(PrimitiveSteps.step(algorithm, slots, true, now, 50, big)).isEqualTo(first.outcome());
        for (long cost : new long[] {0, 1, 11}) {
            long at = now - backMicros;
            Outcome ref = reference.step(first.state(), at, cost, small).outcome();
            TestSlots copy = new TestSlots();
            PrimitiveSteps.fromState(algorithm, first.state(), copy);
            assertThat(PrimitiveSteps.step(algorithm, copy, false, at, cost, small)).as("cost %d", cost).isEqualTo(ref);
            assertThat(ref.remaining()).as("cost %d", cost).isBetween(0L, 10L);
        }
    }

    @Provide
    Arbitrary<Algorithm> lowered() {
        return Arbitraries.of(Algorithm.FIXED_WINDOW, Algorithm.TOKEN_BUCKET, Algorithm.GCRA, Algorithm.SLIDING_WINDOW);
    }

    @Provide
    Arbitrary<Long> backs() {
        return Arbitraries.longs().between(0, 120_000_000L);
    }

    @Property(tries = 1000)
    @SuppressWarnings({"unchecked", "rawtypes"})
    void twinsAgreeWithTheReferenceSteps(@ForAll("scenarios") Scenario s) {
        Policy policy = s.policy();
        Algorithm algorithm = policy.algorithm();
        RateAlgorithm reference = Algorithms.rate(algorithm);
        Object state = null;
        TestSlots slots = new TestSlots();
        long now = s.startMicros();
        for (Event e : s.events()) {
            now += e.gapMicros();
            long at = now - e.backMicros();
            Step<?> step = reference.step(state, at, e.cost(), policy);
            Outcome twin = PrimitiveSteps.step(algorithm, slots, state == null, at, e.cost(), policy);
            assertThat(twin).as("outcome at %d, cost %d", at, e.cost()).isEqualTo(step.outcome());
            boolean written = twin.allowed() && e.cost() > 0;
            assertThat(step.state() != state).as("reference writes exactly when the twin does").isEqualTo(written);
            if (written) {
                state = step.state();
            }
            if (state != null) {
                assertThat(PrimitiveSteps.toState(algorithm, slots)).isEqualTo(state);
                assertThat(PrimitiveSteps.ttlMicros(algorithm, slots, at, policy))
                        .isEqualTo(reference.ttlMicros(state, at, policy));
                TestSlots copy = new TestSlots();
                PrimitiveSteps.fromState(algorithm, state, copy);
                assertThat(PrimitiveSteps.toState(algorithm, copy)).isEqualTo(state);
            }
        }
    }

    @Provide
    Arbitrary<Scenario> scenarios() {
        Arbitrary<Policy> policies = Combinators.combine(
                Arbitraries.of(Algorithm.GCRA, Algorithm.TOKEN_BUCKET, Algorithm.FIXED_WINDOW, Algorithm.SLIDING_WINDOW),
                Arbitraries.longs().between(1, 12),
                Arbitraries.of(1L, 1_000L, 1_000_000L, 7_000_000L, 60_000_000L, 1_000_333L, 250_000L),
                Arbitraries.longs().between(0, 15),
                Arbitraries.of(false, true))
                .as((a, limit, period, burst, staggered) -> Policies.staggeredWhereTaken(Policies.burstWhereTaken(
                        Policy.of(a, limit, Duration.ofNanos(period * 1000)), burst), staggered));
        return policies.flatMap(p -> {
            long interval = p.intervalMicros();
            Arbitrary<Long> gaps = Arbitraries.oneOf(Arbitraries.just(0L), Arbitraries.longs().between(1, 3 * interval),
                    Arbitraries.longs().between(0, 3 * p.periodMicros()));
            Arbitrary<Long> costs = Arbitraries.frequencyOf(Tuple.of(8, Arbitraries.just(1L)),
                    Tuple.of(3, Arbitraries.longs().between(0, 4)), Tuple.of(1, Arbitraries.longs().between(0, 40)));
            Arbitrary<Long> back = Arbitraries.frequencyOf(Tuple.of(10, Arbitraries.just(0L)),
                    Tuple.of(1, Arbitraries.longs().between(1, 2 * p.periodMicros())));
            Arbitrary<Long> start = Arbitraries.of(0L, 19_675L * 86_400_000_000L, 1_763_900_000_123_457L);
            return Combinators.combine(start, Combinators.combine(gaps, costs, back).as(Event::new).list()
                    .ofMinSize(1).ofMaxSize(80)).as((t0, events) -> new Scenario(p, t0, events));
        });
    }
}
