package io.sluice.core.algorithm;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.LeakyBucketSettings;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policies;
import io.sluice.core.policy.Policy;
import io.sluice.core.policy.SlidingLogSettings;
import io.sluice.core.policy.WarmUpSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Properties every rate algorithm keeps, over random policies and random traffic:
 * <ul>
 *   <li>admitted cost stays within the algorithm's bound over every interval (the limit per period, plus the burst
 *       where the algorithm allows one);</li>
 *   <li>remaining is never negative, retry-after is positive exactly when denied (checked by {@link Outcome});</li>
 *   <li>retry-after is exact: with no other traffic the same request passes at {@code now + retryAfter} and not one
 *       microsecond earlier;</li>
 *   <li>a clock that goes backwards never admits what the latest time seen would refuse.</li>
 * </ul>
 */
class AlgorithmPropertiesTest {

    record Event(long gapMicros, long cost, long backMicros) {}

    record Scenario(Policy policy, List<Event> events) {
        @Override
        public String toString() {
            return policy + " with " + events.size() + " events " + events;
        }
    }

    record Admitted(long atMicros, long cost) {}

    @Property(tries = 300)
    void fixedWindowAdmitsAtMostTheLimitPerWindow(@ForAll("fixedWindow") Scenario s) {
        List<Admitted> admitted = run(s, false);
        long period = s.policy().periodMicros();
        java.util.Map<Long, Long> perWindow = new java.util.HashMap<>();
        admitted.forEach(a -> perWindow.merge(Math.floorDiv(a.atMicros(), period), a.cost(), Long::sum));
        assertThat(perWindow.values()).allSatisfy(sum -> assertThat(sum).isLessThanOrEqualTo(s.policy().limit()));
    }

    @Property(tries = 300)
    void slidingWindowCounterAdmitsAtMostTheLimitPerWindow(@ForAll("slidingWindow") Scenario s) {
        List<Admitted> admitted = run(s, false);
        long period = s.policy().periodMicros();
        java.util.Map<Long, Long> perWindow = new java.util.HashMap<>();
        admitted.forEach(a -> perWindow.merge(Math.floorDiv(a.atMicros(), period), a.cost(), Long::sum));
        assertThat(perWindow.values()).allSatisfy(sum -> assertThat(sum).isLessThanOrEqualTo(s.policy().limit()));
        // and over any sliding period, at most twice the limit (the estimate can undercount, never by more)
        assertWithinSlidingPeriod(admitted, period, 2 * s.policy().limit());
    }

    @Property(tries = 300)
    void slidingLogIsExactOverEverySlidingPeriodAndKeepsTheMinimumGap(@ForAll("slidingLog") Scenario s) {
        List<Admitted> admitted = run(s, false);
        assertWithinSlidingPeriod(admitted, s.policy().periodMicros(), s.policy().limit());
        for (int i = 1; i < admitted.size(); i++) {
            assertThat(admitted.get(i).atMicros() - admitted.get(i - 1).atMicros())
                    .isGreaterThanOrEqualTo(s.policy().settings(SlidingLogSettings.class).minIntervalMicros());
        }
    }

    @Property(tries = 300)
    void gcraAdmitsAtMostTheBurstPlusTheRate(@ForAll("gcra") Scenario s) {
        assertBucketBound(s, run(s, false), 0);
    }

    @Property(tries = 300)
    void leakyBucketMeterAdmitsAtMostTheBurstPlusTheRate(@ForAll("leakyMeter") Scenario s) {
        assertBucketBound(s, run(s, false), 0);
    }

    @Property(tries = 300)
    void leakyBucketQueueReleasesAtMostTheBurstPlusTheRate(@ForAll("leakyQueue") Scenario s) {
        List<Admitted> departures = run(s, true);
        departures.sort(java.util.Comparator.comparingLong(Admitted::atMicros));
        assertBucketBound(s, departures, 0);
    }

    @Property(tries = 300)
    void tokenBucketAdmitsAtMostTheCapacityPlusTheRefill(@ForAll("tokenBucket") Scenario s) {
        assertBucketBound(s, run(s, false), 1);
    }

    @Property(tries = 200)
    void warmUpNeverAdmitsFasterThanTheStableRate(@ForAll("warmUp") Scenario s) {
        List<Admitted> admitted = run(s, false);
        long stable = s.policy().periodMicros() / s.policy().limit();
        for (int i = 0; i < admitted.size(); i++) {
            long cost = 0;
            for (int j = i + 1; j < admitted.size(); j++) {
                cost += admitted.get(j - 1).cost();
                // each permit costs at least the stable interval; Guava truncates each wait to whole microseconds
                assertThat(cost * stable).isLessThanOrEqualTo(admitted.get(j).atMicros() - admitted.get(i).atMicros()
                        + 2L * (j - i));
            }
        }
    }

    @Property(tries = 300)
    void concurrencyNeverHasMoreThanTheLimitInFlight(@ForAll("concurrencyOps") List<long[]> ops) {
        Policy policy = Policy.parse("3 concurrent lease 10s");
        Concurrency leases = new Concurrency();
        Concurrency.State state = null;
        long now = Timeline.at("0s");
        List<String> held = new ArrayList<>();
        int id = 0;
        for (long[] op : ops) {
            now += op[0];
            if (op[1] == 0 && !held.isEmpty()) {
                state = leases.release(state, now, held.remove(0));
            } else {
                Step<Concurrency.State> step = leases.acquire(state, now, op[2], policy, "lease-" + id++);
                if (step.outcome().allowed()) {
                    state = step.state();
                    held.add("lease-" + (id - 1));
                } else {
                    assertThat(step.outcome().remaining()).isLessThan(op[2]);
                }
            }
            long inFlight = 0;
            if (state != null) {
                for (int i = 0; i < state.size(); i++) {
                    inFlight += state.expiries()[i] > now ? state.weights()[i] : 0;
                }
            }
            assertThat(inFlight).isLessThanOrEqualTo(policy.limit());
        }
    }

    /**
     * The same per-step checks (retry-after exact, remaining within the capacity, an earlier clock admits nothing the
     * latest would refuse, a positive TTL, no exception) for policies at the edges of what {@link Policy} accepts:
     * a billion permits, periods from 1 ms to 366 days, bucket spans near 2^52 µs, cold factors of 1000, costs up to
     * {@code Long.MAX_VALUE}.
     */
    @Property(tries = 300)
    void everyRateAlgorithmKeepsItsPromisesAtTheExtremes(@ForAll("extremes") Scenario s) {
        run(s, false);
    }

    // ---- the run and its per-step checks

    /**
     * Runs the scenario as a store would, checking at each step that retry-after is exact and that an earlier clock
     * never admits more; returns the admitted requests (at their departure time when {@code departures}).
     */
    @SuppressWarnings("unchecked")
    private static <S> List<Admitted> run(Scenario s, boolean departures) {
        RateAlgorithm<S> algorithm = Algorithms.rate(s.policy().algorithm());
        Policy policy = s.policy();
        S state = null;
        long now = Timeline.at("0s");
        long latest = now;
        long seen = Long.MIN_VALUE;
        List<Admitted> admitted = new ArrayList<>();
        for (Event e : s.events()) {
            now += e.gapMicros();
            latest = Math.max(latest, now);
            long at = e.backMicros() > 0 ? latest - e.backMicros() : latest;
            S before = state;
            long effective = Math.max(seen, at);   // the algorithm's own latest time: that of the last state it wrote
            Step<S> step = algorithm.step(state, at, e.cost(), policy);
            Outcome o = step.outcome();
            assertThat(o.remaining()).isLessThanOrEqualTo(Math.max(policy.limit(), policy.capacity()));
            if (at < effective && o.allowed() && e.cost() > 0) {
                assertThat(algorithm.step(state, seen, e.cost(), policy).outcome().allowed())
                        .as("admitted at %d, before the latest time seen %d, but not at it", at, seen).isTrue();
            }
            if (o.allowed()) {
                if (e.cost() > 0) {
                    // counted at the latest time seen: a late clock's request takes effect no earlier than that
                    admitted.add(new Admitted(effective + (departures ? o.delayMicros() : 0), e.cost()));
                }
                state = step.state();
            } else {
                state = algorithm.onDenied(state, at, e.cost(), policy);
                if (!o.never()) {
                    long retryAt = at + o.retryAfterMicros();
                    assertThat(algorithm.step(state, retryAt, e.cost(), policy).outcome().allowed())
                            .as("allowed at now + retry-after %d", o.retryAfterMicros()).isTrue();
                    if (retryAt - 1 > at) {
                        assertThat(algorithm.step(state, retryAt - 1, e.cost(), policy).outcome().allowed())
                                .as("still denied one microsecond before retry-after %d", o.retryAfterMicros()).isFalse();
                    }
                } else {
                    assertThat(e.cost()).isGreaterThan(policy.capacity() > 0 ? Math.min(policy.capacity(), policy.limit()) : 0);
                }
            }
            if (state != before) {
                seen = effective;
            }
            assertThat(algorithm.ttlMicros(state, at, policy)).isPositive();
            if (e.backMicros() == 0) {
                now = at;
            }
        }
        return admitted;
    }

    private static void assertWithinSlidingPeriod(List<Admitted> admitted, long period, long bound) {
        for (int i = 0; i < admitted.size(); i++) {
            long sum = 0;
            for (int j = i; j < admitted.size() && admitted.get(j).atMicros() < admitted.get(i).atMicros() + period; j++) {
                sum += admitted.get(j).cost();
            }
            assertThat(sum).as("admitted in the period from %d", admitted.get(i).atMicros()).isLessThanOrEqualTo(bound);
        }
    }

    /** For every pair i <= j: cost admitted from i to j <= capacity + (tj - ti) / I (+ slack intervals). */
    private static void assertBucketBound(Scenario s, List<Admitted> admitted, int slackIntervals) {
        long interval = s.policy().intervalMicros();
        long capacity = s.policy().capacity();
        for (int i = 0; i < admitted.size(); i++) {
            long sum = 0;
            for (int j = i; j < admitted.size(); j++) {
                sum += admitted.get(j).cost();
                long span = admitted.get(j).atMicros() - admitted.get(i).atMicros();
                assertThat(sum).as("admitted from #%d to #%d over %d µs", i, j, span)
                        .isLessThanOrEqualTo(capacity + span / interval + slackIntervals);
            }
        }
    }

    // ---- generators

    @Provide
    Arbitrary<Scenario> fixedWindow() {
        return scenarios(rate(Algorithm.FIXED_WINDOW), false);
    }

    @Provide
    Arbitrary<Scenario> slidingWindow() {
        return scenarios(rate(Algorithm.SLIDING_WINDOW), true);
    }

    @Provide
    Arbitrary<Scenario> slidingLog() {
        Arbitrary<Policy> policies = Combinators.combine(rate(Algorithm.SLIDING_LOG),
                Arbitraries.longs().between(0, 3_000_000), Arbitraries.of(true, false))
                .as((p, gap, counts) -> p.withSettings(new SlidingLogSettings(gap, counts)));
        return scenarios(policies, true);
    }

    @Provide
    Arbitrary<Scenario> gcra() {
        return scenarios(withBurst(rate(Algorithm.GCRA)), true);
    }

    @Provide
    Arbitrary<Scenario> leakyMeter() {
        return scenarios(withBurst(rate(Algorithm.LEAKY_BUCKET)), true);
    }

    @Provide
    Arbitrary<Scenario> leakyQueue() {
        Arbitrary<Policy> policies = Combinators.combine(withBurst(rate(Algorithm.LEAKY_BUCKET)),
                Arbitraries.longs().between(1, 5_000_000), Arbitraries.longs().between(0, 3))
                .as((p, wait, delay) -> p.withSettings(new LeakyBucketSettings(
                        p.settings(LeakyBucketSettings.class).burst(), wait, delay)));
        return scenarios(policies, false).filter(s -> s.policy().settings(LeakyBucketSettings.class).delay() == 0);
    }

    @Provide
    Arbitrary<Scenario> tokenBucket() {
        return scenarios(withBurst(rate(Algorithm.TOKEN_BUCKET)), true);
    }

    @Provide
    Arbitrary<Scenario> warmUp() {
        Arbitrary<Policy> policies = Combinators.combine(rate(Algorithm.WARM_UP),
                Arbitraries.longs().between(1, 5_000_000), Arbitraries.integers().between(1, 5))
                .as((p, warmup, cold) -> p.withSettings(new WarmUpSettings(warmup, cold)));
        return scenarios(policies, true);
    }

    @Provide
    Arbitrary<List<long[]>> concurrencyOps() {
        return Combinators.combine(Arbitraries.longs().between(0, 4_000_000), Arbitraries.longs().between(0, 2),
                Arbitraries.longs().between(0, 4)).as((gap, kind, cost) -> new long[] {gap, kind, cost})
                .list().ofMaxSize(60);
    }

    @Provide
    Arbitrary<Scenario> extremes() {
        Arbitrary<Policy> policies = Arbitraries.of(
                "gcra|1000000000/1ms", "gcra|1/366d", "gcra|1/1d burst 52124", "gcra|3/366d burst 427",
                "gcra|1000000000/366d", "gcra|999999999/1s burst 1", "token-bucket|1000000000/1ms",
                "token-bucket|1/1d burst 52124", "token-bucket|1000000000/366d burst 1",
                "leaky-bucket|1/1d burst 52124", "leaky-bucket|1000000000/1ms max-wait 366d delay 1000000000",
                "leaky-bucket|7/366d burst 9 max-wait 366d", "leaky-bucket|1/1d burst 52124 max-wait 1ms",
                "fixed-window|1000000000/366d", "fixed-window|1/1ms", "fixed-window|999999937/7d",
                "sliding-window|1000000000/366d", "sliding-window|999999937/7d", "sliding-window|1/1ms",
                "sliding-window|3/366d", "sliding-log|100000/366d min-interval 366d count-rejected",
                "sliding-log|3/1ms min-interval 366d", "sliding-log|100000/1ms",
                "warm-up|1000000/1s warm-up 366d cold-factor 1000", "warm-up|1/366d warm-up 366d cold-factor 1000",
                "warm-up|1000000000/366d warm-up 1ms", "warm-up|1000/1ms warm-up 1ms cold-factor 1000")
                .map(spec -> io.sluice.core.policy.PolicyParser.parse("limit", spec.substring(spec.indexOf('|') + 1),
                        Algorithm.fromId("algorithm", spec.substring(0, spec.indexOf('|')))));
        return policies.flatMap(p -> {
            long interval = p.intervalMicros();
            long most = Math.max(p.capacity(), p.limit());
            Arbitrary<Long> gaps = Arbitraries.oneOf(Arbitraries.of(0L, 1L, interval, p.periodMicros()),
                    Arbitraries.longs().between(0, 3 * interval), Arbitraries.longs().between(0, 2 * p.periodMicros()));
            Arbitrary<Long> costs = Arbitraries.oneOf(Arbitraries.of(0L, 1L, most, most + 1, Long.MAX_VALUE, (1L << 53) + 1),
                    Arbitraries.longs().between(0, most));
            Arbitrary<Long> back = Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(6, Arbitraries.just(0L)),
                    net.jqwik.api.Tuple.of(1, Arbitraries.longs().between(1, p.periodMicros())));
            return Combinators.combine(gaps, costs, back).as(Event::new).list().ofMinSize(1).ofMaxSize(40)
                    .map(events -> new Scenario(p, events));
        });
    }

    private static Arbitrary<Policy> rate(Algorithm algorithm) {
        return Combinators.combine(Arbitraries.longs().between(1, 12),
                Arbitraries.of(1_000_000L, 7_000_000L, 60_000_000L, 1_000_333L, 250_000L))
                .as((limit, period) -> Policy.of(algorithm, limit, Duration.ofNanos(period * 1000)));
    }

    private static Arbitrary<Policy> withBurst(Arbitrary<Policy> policies) {
        return Combinators.combine(policies, Arbitraries.longs().between(0, 15)).as(Policies::burstWhereTaken);
    }

    private static Arbitrary<Scenario> scenarios(Arbitrary<Policy> policies, boolean backwards) {
        return policies.flatMap(p -> {
            long interval = Math.max(1, p.periodMicros() / p.limit());
            Arbitrary<Long> gaps = Arbitraries.oneOf(Arbitraries.just(0L), Arbitraries.longs().between(1, 3 * interval),
                    Arbitraries.longs().between(0, 2 * p.periodMicros()));
            Arbitrary<Long> costs = Arbitraries.frequencyOf(
                    net.jqwik.api.Tuple.of(8, Arbitraries.just(1L)),
                    net.jqwik.api.Tuple.of(3, Arbitraries.longs().between(0, 4)),
                    net.jqwik.api.Tuple.of(1, Arbitraries.longs().between(0, 40)));
            Arbitrary<Long> back = backwards
                    ? Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(10, Arbitraries.just(0L)),
                            net.jqwik.api.Tuple.of(1, Arbitraries.longs().between(1, p.periodMicros())))
                    : Arbitraries.just(0L);
            return Combinators.combine(gaps, costs, back).as(Event::new).list().ofMinSize(1).ofMaxSize(80)
                    .map(events -> new Scenario(p, events));
        });
    }
}
