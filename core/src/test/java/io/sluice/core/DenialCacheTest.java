package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import io.sluice.core.policy.WarmUpSettings;
import io.sluice.core.request.RequestView;
import io.sluice.core.store.Check;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.testing.ForwardingStore;
import io.sluice.core.testing.ManualTimeSource;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The denial cache gives the store's own answer, field for field, or none (issue 30): each engine here goes through
 * the cache to a memory store that is not one (as with Redis), and is held to the memory store asked directly on the
 * same clock. The first three are the minimal cases, at t = 0.
 */
class DenialCacheTest {

    private final ManualTimeSource time = new ManualTimeSource();
    private final MemoryStore direct = MemoryStore.builder().timeSource(time).build();
    private final AtomicInteger calls = new AtomicInteger();
    private final Engine engine = Engine.builder().timeSource(time)
            .store(new ForwardingStore(MemoryStore.builder().timeSource(time).build()) {
                @Override
                protected void beforeEvaluate(List<Check> checks) {
                    calls.incrementAndGet();
                }
            }).build();

    /** Each cost in turn through the engine and directly: the last answers, which must be equal. */
    private Outcome both(Policy policy, long... costs) {
        Outcome cached = null;
        Outcome stored = null;
        for (long cost : costs) {
            cached = engine.tryAcquire("api", "k", policy, cost);
            stored = direct.evaluate(List.of(Check.of("api", "k", policy, cost)), time.nowMicros()).get(0);
            assertThat(cached).as("%s, cost %d", policy, cost).isEqualTo(stored);
        }
        return stored;
    }

    @Test
    void aCostAboveTheCapacityIsNeverAfterASmallerOneWasDenied() {
        Outcome last = both(Policy.parse("3/1s").withAlgorithm(Algorithm.TOKEN_BUCKET), 3, 1, 4);
        assertThat(last.never()).isTrue();
    }

    @Test
    void aLargerCostWaitsForAllItsTokensAfterASmallerOneWasDenied() {
        Outcome last = both(Policy.parse("3/1s").withAlgorithm(Algorithm.TOKEN_BUCKET), 3, 1, 3);
        assertThat(last.retryAfterMicros()).isEqualTo(999_999);
    }

    @Test
    void aRequestAdmittedAfterADenialChangesWhatTheNextDenialSays() {
        Outcome last = both(Policy.parse("10/1s").withAlgorithm(Algorithm.FIXED_WINDOW), 8, 3, 1, 3);
        assertThat(last.remaining()).isEqualTo(1);
    }

    @Test
    void aWarmUpDenialOfAnyCostIsAnsweredFromMemoryAndACostAboveTheLimitIsNever() {
        Policy warmUp = Policy.of(Algorithm.WARM_UP, 4, Duration.ofSeconds(1))
                .withSettings(new WarmUpSettings(2_000_000, 3));
        both(warmUp, 1, 2);
        int before = calls.get();
        time.advanceMicros(1_000);
        assertThat(both(warmUp, 3).retryAfterMicros()).isPositive();
        assertThat(both(warmUp, 5).never()).as("5 is above the limit of 4").isTrue();
        assertThat(calls).as("both answered from memory").hasValue(before);
    }

    /**
     * A sliding window's denial of a cost of 3 that left 1 says nothing of when the second unit comes back: the same
     * cost again goes to the store. One that left 2 is answered from memory until its retry time (2 stay 2: a third
     * would admit it), and so is a cost of 1 denied with 0 left.
     */
    @Test
    void aSlidingWindowDenialIsAnsweredFromMemoryOnlyWhileItsRemainingCannotChange() {
        Policy window = Policy.parse("4/1s").withAlgorithm(Algorithm.SLIDING_WINDOW);
        both(window, 4);
        time.advance(Duration.ofMillis(1_100));      // the next window: the previous one's 4 weigh 90%, so 3
        assertThat(both(window, 3).remaining()).isEqualTo(1);
        int before = calls.get();
        time.advance(Duration.ofMillis(300));        // they weigh 60%, so 2
        assertThat(both(window, 3).remaining()).isEqualTo(2);
        assertThat(calls).as("asked again").hasValue(before + 1);
        time.advance(Duration.ofMillis(50));
        assertThat(both(window, 3).remaining()).isEqualTo(2);
        assertThat(calls).as("2 left for a cost of 3: from memory").hasValue(before + 1);
        assertThat(both(window, 1).allowed()).isTrue();
        assertThat(both(window, 1).allowed()).isTrue();
        assertThat(both(window, 1).allowed()).isFalse();
        before = calls.get();
        time.advance(Duration.ofMillis(1));
        assertThat(both(window, 1).allowed()).isFalse();
        assertThat(calls).as("a cost of 1, denied with 0 left: from memory").hasValue(before);
    }

    /**
     * Two rules, one per client and one for everyone: a client's denial is remembered, then other clients use up the
     * global rule, which now denies for longer. The store would say so: the remembered denial alone must not answer.
     */
    @Test
    void aRequestOfSeveralRulesIsAnsweredFromMemoryOnlyWhenEachOfThemIsKnownToDeny() {
        Rule perClient = Rule.builder("per-client").policy("1/10s").key(RequestView::remoteAddress).build();
        Rule global = Rule.builder("global").policy(Policy.parse("3/1m").withAlgorithm(Algorithm.FIXED_WINDOW)).build();
        Engine reference = Engine.builder().timeSource(time).denialCacheSize(0).rules(List.of(perClient, global))
                .build();
        Engine cached = Engine.builder().timeSource(time).rules(List.of(perClient, global))
                .store(new ForwardingStore(MemoryStore.builder().timeSource(time).build())).build();
        RequestView first = RequestView.builder("GET", "/").remoteAddress("10.0.0.1").build();
        for (String client : new String[] {"10.0.0.1", "10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.1"}) {
            RequestView request = RequestView.builder("GET", "/").remoteAddress(client).build();
            Decision expected = reference.check(request);
            Decision actual = cached.check(request);
            assertThat(actual.allowed()).isEqualTo(expected.allowed());
            assertThat(actual.binding().rule().name()).as(client).isEqualTo(expected.binding().rule().name());
            assertThat(actual.binding().outcome()).as(client).isEqualTo(expected.binding().outcome());
        }
        Decision last = cached.check(first);
        assertThat(last.binding().rule().name()).as("the global rule, full until the minute ends").isEqualTo("global");
    }

    /**
     * A rule that counts by outcome is charged after the response: a denial remembered while a request was in flight
     * no longer holds once that request is charged.
     */
    @Test
    void aChargeAfterTheResponseForgetsTheKeysRememberedDenial() {
        Policy two = Policy.parse("2/1m").withAlgorithm(Algorithm.FIXED_WINDOW);
        Rule one = Rule.builder("errors").policy(two).countStatuses(Set.of(500)).build();
        Rule both = Rule.builder("errors").policy(two).cost(2).countStatuses(Set.of(500)).build();
        Engine cached = Engine.builder().timeSource(time)
                .store(new ForwardingStore(MemoryStore.builder().timeSource(time).build())).build();
        RequestView request = RequestView.builder("GET", "/").build();
        cached.charge(request, cached.check(request, List.of(one)), 500);       // 1 of 2 used
        Decision inFlight = cached.check(request, List.of(one));
        assertThat(inFlight.allowed()).isTrue();
        Decision denied = cached.check(request, List.of(both));
        assertThat(denied.binding().outcome().remaining()).isEqualTo(1);
        cached.charge(request, inFlight, 500);                                   // 2 of 2 used
        assertThat(cached.check(request, List.of(both)).binding().outcome().remaining()).as("the store: none left")
                .isZero();
    }
}
