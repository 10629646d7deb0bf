package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Policy;
import io.sluice.core.policy.Outcome;
import io.sluice.core.request.RequestView;
import io.sluice.core.policy.PolicyParser;
import io.sluice.core.store.Check;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.store.Store;
import io.sluice.core.store.StoreException;
import io.sluice.core.testing.ForwardingStore;
import io.sluice.core.testing.ManualTimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The engine around a store that fails, and a store whose calls are counted: breaker, denial cache, listeners. */
class EngineResilienceTest {

    private final ManualTimeSource time = new ManualTimeSource();
    private final MemoryStore memory = MemoryStore.builder().timeSource(time).build();
    private final AtomicInteger calls = new AtomicInteger();
    private final AtomicBoolean down = new AtomicBoolean();
    private final AtomicBoolean broken = new AtomicBoolean();

    /** A real MemoryStore behind a switch that makes it fail like an unreachable Redis, counting the calls. */
    private final Store switchable = new ForwardingStore(memory) {
        @Override
        protected void beforeEvaluate(List<Check> checks) {
            calls.incrementAndGet();
            if (down.get()) {
                throw new StoreException("connection refused");
            }
            if (broken.get()) {
                throw new IllegalStateException("a bug in a store, not a failure to reach it");
            }
        }
    };

    private static final RequestView REQUEST = RequestView.builder("GET", "/").remoteAddress("10.0.0.1").build();

    private Engine.Builder engine(String notation, Algorithm algorithm) {
        return Engine.builder().timeSource(time).store(switchable)
                .rule(Rule.builder("per-ip").policy(PolicyParser.parse("limit", notation, algorithm))
                        .key(RequestView::remoteAddress).build());
    }

    @Test
    void aRuleCanTurnTheDenialCacheOff() {
        Engine engine = Engine.builder().timeSource(time).store(switchable)
                .rule(Rule.builder("per-ip").policy(PolicyParser.parse("limit", "1/1m", Algorithm.FIXED_WINDOW))
                        .key(RequestView::remoteAddress).denialCache(false).build()).build();
        for (int i = 0; i < 5; i++) {
            engine.check(REQUEST);
        }
        assertThat(calls).as("every request asks the store").hasValue(5);
    }

    @Test
    void aDeniedKeyCostsNoStoreCallUntilItsRetryTime() {
        Engine engine = engine("2/1m", Algorithm.FIXED_WINDOW).build();
        engine.check(REQUEST);
        engine.check(REQUEST);
        Decision denied = engine.check(REQUEST);
        assertThat(denied.allowed()).isFalse();
        assertThat(calls).hasValue(3);

        time.advance(Duration.ofSeconds(30));
        for (int i = 0; i < 100; i++) {
            Decision again = engine.check(REQUEST);
            assertThat(again.allowed()).isFalse();
            assertThat(again.retryAfterMicros()).isEqualTo(30_000_000);
        }
        assertThat(calls).as("hammering while blocked: no store calls").hasValue(3);

        time.advance(Duration.ofSeconds(30));
        assertThat(engine.check(REQUEST).allowed()).isTrue();
        assertThat(calls).hasValue(4);
    }

    /** Issue 24: a sliding log's 429 said r=4, the next (from the denial cache) r=0, with nothing consumed between. */
    @Test
    void aRememberedDenialSaysWhatTheStoreSaysForTheSameState() {
        int client = 0;
        for (String notation : new String[] {"5/10s min-interval 1s", "2/1m"}) {
            for (Algorithm algorithm : new Algorithm[] {Algorithm.SLIDING_LOG, Algorithm.FIXED_WINDOW, Algorithm.GCRA,
                    Algorithm.TOKEN_BUCKET, Algorithm.SLIDING_WINDOW}) {
                if (notation.contains("min-interval") && algorithm != Algorithm.SLIDING_LOG) {
                    continue;
                }
                RequestView request = RequestView.builder("GET", "/").remoteAddress("10.0.1." + ++client).build();
                Engine cached = engine(notation, algorithm).build();
                Engine uncached = engine(notation, algorithm).denialCacheSize(0).build();
                Decision fromStore = null;
                for (int i = 0; i < 3 && (fromStore == null || fromStore.allowed()); i++) {
                    fromStore = cached.check(request);
                }
                assertThat(fromStore.allowed()).as(notation + " " + algorithm).isFalse();
                time.advance(Duration.ofMillis(100));
                int before = calls.get();
                Outcome remembered = cached.check(request).binding().outcome();
                assertThat(calls).as("answered from memory").hasValue(before);
                Outcome stored = uncached.check(request).binding().outcome();
                assertThat(calls).as("answered by the store").hasValue(before + 1);
                assertThat(remembered).as(notation + " " + algorithm).isEqualTo(stored);
                assertThat(stored.remaining()).as("a denial leaves nothing to use now").isZero();
            }
        }
    }

    @Test
    void theDenialCacheCanBeTurnedOffAndIsClearedByReset() {
        Engine uncached = engine("1/1m", Algorithm.FIXED_WINDOW).denialCacheSize(0).build();
        uncached.check(REQUEST);
        uncached.check(REQUEST);
        uncached.check(REQUEST);
        assertThat(calls).hasValue(3);

        Engine cached = engine("1/1m", Algorithm.GCRA).build();
        calls.set(0);
        cached.check(REQUEST);
        assertThat(cached.check(REQUEST).allowed()).isFalse();
        cached.reset("per-ip", "10.0.0.1");
        assertThat(cached.check(REQUEST).allowed()).as("reset unblocks at once").isTrue();
    }

    @Test
    void breakerOpensAfterFailuresAndTheEngineAnswersWithoutCallingTheStore() {
        Engine engine = engine("100/1m", Algorithm.FIXED_WINDOW).build();
        down.set(true);
        for (int i = 0; i < 3; i++) {
            assertThat(engine.check(REQUEST).allowed()).as("allow on store failure").isTrue();
        }
        assertThat(engine.storeCircuit()).isEqualTo(io.sluice.core.store.CircuitBreaker.State.OPEN);
        for (int i = 0; i < 50; i++) {
            assertThat(engine.check(REQUEST).allowed()).isTrue();
        }
        assertThat(calls).as("open circuit: the store is not called").hasValue(3);

        down.set(false);
        time.advance(Duration.ofMillis(500));
        Decision probe = engine.check(REQUEST);
        assertThat(probe.binding().source()).isEqualTo(RuleOutcome.Source.STORE);
        assertThat(engine.storeCircuit()).isEqualTo(io.sluice.core.store.CircuitBreaker.State.CLOSED);
    }

    @Test
    void anUnexpectedExceptionFromTheStoreIsAFailureAndDoesNotLeaveTheProbeOpenForever() {
        Engine engine = engine("100/1m", Algorithm.FIXED_WINDOW).build();
        down.set(true);
        for (int i = 0; i < 3; i++) {
            engine.check(REQUEST);
        }
        down.set(false);
        broken.set(true);
        time.advance(Duration.ofMillis(500));
        Decision probe = engine.check(REQUEST);
        assertThat(probe.allowed()).as("answered by the rule's failure mode, not a 500").isTrue();
        assertThat(probe.binding().source()).isEqualTo(RuleOutcome.Source.FAILURE_ALLOWED);
        assertThat(engine.storeCircuit()).isEqualTo(io.sluice.core.store.CircuitBreaker.State.OPEN);

        broken.set(false);
        time.advance(Duration.ofMillis(500));
        assertThat(engine.check(REQUEST).binding().source()).as("the next probe is let through")
                .isEqualTo(RuleOutcome.Source.STORE);
        assertThat(engine.storeCircuit()).isEqualTo(io.sluice.core.store.CircuitBreaker.State.CLOSED);

        broken.set(true);
        assertThat(engine.check(REQUEST).binding().source()).as("a closed circuit counts it as a failure too")
                .isEqualTo(RuleOutcome.Source.FAILURE_ALLOWED);
    }

    @Test
    void listenersSeeEveryDecisionWithItsKind() {
        List<DecisionListener.Event> seen = new ArrayList<>();
        Engine engine = engine("1/1m", Algorithm.FIXED_WINDOW)
                .listener((request, decision, event) -> seen.add(event))
                .listener((request, decision, event) -> {
                    throw new IllegalStateException("a broken listener changes nothing");
                })
                .build();
        engine.check(REQUEST);
        engine.check(REQUEST);
        engine.check(REQUEST);
        down.set(true);
        engine.reset("per-ip", "10.0.0.1");
        engine.check(REQUEST);

        assertThat(seen).containsExactly(DecisionListener.Event.ALLOWED, DecisionListener.Event.DENIED,
                DecisionListener.Event.DENIED_FROM_CACHE, DecisionListener.Event.STORE_FAILURE);
    }

    @Test
    void aListenerThatFailsOnEveryDecisionIsLoggedAtMostOnceAMinute() {
        Engine engine = engine("1/1m", Algorithm.FIXED_WINDOW)
                .listener((request, decision, event) -> {
                    if (!decision.allowed()) {      // as an observer of denials that fails: a client makes many
                        throw new IllegalStateException("a broken listener");
                    }
                })
                .build();
        try (io.sluice.core.testing.LogCapture log = new io.sluice.core.testing.LogCapture(Engine.class.getName())) {
            for (int i = 0; i < 1_000; i++) {
                engine.check(REQUEST);
            }
            assertThat(log.warnings()).hasSize(1).first().asString().contains("failed");
            time.advance(Duration.ofSeconds(61));
            engine.check(REQUEST);
            engine.check(REQUEST);

            assertThat(log.warnings()).hasSize(2).last().asString().contains("998 more");
        }
    }

    @Test
    void anUnexpectedExceptionOfTheStoreIsLoggedAtMostOnceAMinuteEvenBetweenSuccesses() {
        AtomicInteger n = new AtomicInteger();
        Store flaky = new ForwardingStore(memory) {
            @Override
            protected void beforeEvaluate(List<Check> checks) {
                if (n.incrementAndGet() % 2 == 0) {     // never enough in a row to open the circuit
                    throw new IllegalStateException("a bug in a store for some keys");
                }
            }
        };
        Engine engine = Engine.builder().timeSource(time).store(flaky)
                .rule(Rule.builder("per-ip").policy("1000/1m").key(RequestView::remoteAddress).build()).build();
        try (io.sluice.core.testing.LogCapture log = new io.sluice.core.testing.LogCapture(Engine.class.getName())) {
            for (int i = 0; i < 200; i++) {
                engine.check(REQUEST);
            }

            assertThat(log.warnings()).hasSize(1);
        }
    }

    @Test
    void aLeaseTakenByACallThatTimedOutIsReleasedBeforeTheNextCall() {
        AtomicBoolean ranThenTimedOut = new AtomicBoolean();
        Store slow = new ForwardingStore(memory) {
            @Override
            public List<Outcome> evaluate(List<Check> checks, long nowMicros) {
                List<Outcome> outcomes = super.evaluate(checks, nowMicros);
                if (ranThenTimedOut.getAndSet(false)) {
                    throw new StoreException("Read timed out");       // as a Redis call whose script ran meanwhile
                }
                return outcomes;
            }
        };
        Engine engine = Engine.builder().timeSource(time).store(slow)
                .rule(Rule.builder("export").policy(Policy.concurrent(1)).key(RequestView::remoteAddress).build()).build();

        ranThenTimedOut.set(true);
        Decision duringTheStall = engine.check(REQUEST);
        assertThat(duringTheStall.allowed()).isTrue();
        assertThat(duringTheStall.binding().source()).isEqualTo(RuleOutcome.Source.FAILURE_ALLOWED);
        assertThat(duringTheStall.leases()).as("the engine holds no lease of the failed call").isEmpty();
        assertThat(engine.orphanedLeases()).isEqualTo(1);
        engine.release(duringTheStall);                               // the request completes: nothing to release

        Decision next = engine.check(REQUEST);
        assertThat(next.allowed()).as("nothing in flight: the lease the failed call took was released first").isTrue();
        assertThat(engine.orphanedLeases()).isZero();
        engine.release(next);
        assertThat(engine.check(REQUEST).allowed()).isTrue();
    }

    @Test
    void anErrorOnTheProbeDoesNotLeaveTheCircuitHalfOpenForever() {
        AtomicBoolean error = new AtomicBoolean();
        Store failing = new ForwardingStore(memory) {
            @Override
            protected void beforeEvaluate(List<Check> checks) {
                if (down.get()) {
                    throw new StoreException("connection refused");
                }
                if (error.get()) {
                    throw new StackOverflowError("a store's bug");
                }
            }
        };
        Engine engine = Engine.builder().timeSource(time).store(failing)
                .rule(Rule.builder("per-ip").policy("100/1m").key(RequestView::remoteAddress).build()).build();
        down.set(true);
        for (int i = 0; i < 3; i++) {
            engine.check(REQUEST);
        }
        down.set(false);
        error.set(true);
        time.advance(Duration.ofMillis(500));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> engine.check(REQUEST))
                .as("an Error is not swallowed").isInstanceOf(StackOverflowError.class);
        assertThat(engine.storeCircuit()).isEqualTo(io.sluice.core.store.CircuitBreaker.State.OPEN);

        error.set(false);
        time.advance(Duration.ofMillis(500));
        assertThat(engine.check(REQUEST).binding().source()).as("the next probe goes through")
                .isEqualTo(RuleOutcome.Source.STORE);
    }

    @Test
    void aLeaseThatCannotBeReleasedDoesNotStopTheStoreCalls() {
        AtomicBoolean ranThenTimedOut = new AtomicBoolean();
        AtomicBoolean releaseFails = new AtomicBoolean(true);
        Store partlyDown = new ForwardingStore(memory) {
            @Override
            public List<Outcome> evaluate(List<Check> checks, long nowMicros) {
                List<Outcome> outcomes = super.evaluate(checks, nowMicros);
                if (ranThenTimedOut.getAndSet(false)) {
                    throw new StoreException("Read timed out");
                }
                return outcomes;
            }

            @Override
            public void release(List<io.sluice.core.store.Lease> leases, long nowMicros) {
                if (releaseFails.get()) {
                    throw new StoreException("the master of that key is down");     // a Cluster with one master down
                }
                super.release(leases, nowMicros);
            }
        };
        Engine engine = Engine.builder().timeSource(time).store(partlyDown)
                .rule(Rule.builder("export").policy(Policy.concurrent(1)).key(RequestView::remoteAddress).build()).build();
        ranThenTimedOut.set(true);
        engine.check(REQUEST);                                        // leaves a lease it may have taken

        for (int i = 0; i < 20; i++) {
            RequestView other = RequestView.builder("GET", "/").remoteAddress("10.0.1." + i).build();
            Decision d = engine.check(other);
            assertThat(d.binding().source()).as("other clients' calls go on").isEqualTo(RuleOutcome.Source.STORE);
            engine.release(d);
        }
        assertThat(engine.storeCircuit()).isEqualTo(io.sluice.core.store.CircuitBreaker.State.CLOSED);
        assertThat(engine.orphanedLeases()).as("kept for a later try: the failed call's, and the 20 whose release "
                + "failed").isEqualTo(21);

        releaseFails.set(false);
        time.advance(Duration.ofSeconds(1));
        Decision next = engine.check(REQUEST);
        assertThat(next.allowed()).as("released once it can be: nothing in flight").isTrue();
        assertThat(engine.orphanedLeases()).isZero();
    }
}
