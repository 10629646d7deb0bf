package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.policy.Policy;
import io.sluice.core.request.RequestView;
import io.sluice.core.store.Check;
import io.sluice.core.store.CircuitBreaker;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.store.StoreException;
import io.sluice.core.testing.ForwardingStore;
import io.sluice.core.testing.ManualTimeSource;
import io.sluice.core.testing.TestThreads;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Races between request threads and the engine's shared local state (denial cache, penalty box, circuit breaker),
 * driven step by step: a store that holds a request's thread between its answer and the engine's use of it, so the
 * interleaving is forced, not hoped for.
 */
class EngineRacesTest {

    private static final RequestView CLIENT = RequestView.builder("GET", "/").remoteAddress("203.0.113.5").build();

    private final ManualTimeSource time = new ManualTimeSource();
    private final MemoryStore memory = MemoryStore.builder().timeSource(time).build();

    /** A store that, while armed, holds the calling thread after the memory store answered, until released. */
    private static final class HoldingStore extends ForwardingStore {
        final CountDownLatch answered = new CountDownLatch(1);
        final CountDownLatch proceed = new CountDownLatch(1);
        volatile boolean armed;
        volatile RuntimeException fail;
        volatile Error error;

        HoldingStore(MemoryStore memory) {
            super(memory);
        }

        @Override
        protected void beforeEvaluate(List<Check> checks) {
            if (error != null) {
                throw error;
            }
            if (fail != null) {
                throw fail;
            }
        }

        @Override
        public List<io.sluice.core.policy.Outcome> evaluate(List<Check> checks, long nowMicros) {
            List<io.sluice.core.policy.Outcome> out = super.evaluate(checks, nowMicros);
            if (armed) {
                armed = false;
                answered.countDown();
                try {
                    if (!proceed.await(10, TimeUnit.SECONDS)) {
                        throw new AssertionError("never released");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return out;
        }
    }

    private Engine engine(HoldingStore store, String limit) {
        return Engine.builder().timeSource(time).store(store)
                .rule(Rule.builder("per-ip").policy(Policy.parse(limit)).key(RequestView::remoteAddress).build())
                .build();
    }

    /** Runs one check on another thread, held in the store after its answer; returns once it is held there. */
    private static CompletableFuture<Decision> heldCheck(Engine engine, HoldingStore store) throws InterruptedException {
        store.armed = true;
        CompletableFuture<Decision> inFlight = CompletableFuture.supplyAsync(() -> engine.check(CLIENT),
                TestThreads.OWN);
        assertThat(store.answered.await(10, TimeUnit.SECONDS)).as("the request reached the store").isTrue();
        return inFlight;
    }

    @Test
    void aResetIsNotUndoneByADenialThatWasInFlightWhenItRan() throws Exception {
        HoldingStore store = new HoldingStore(memory);
        Engine engine = engine(store, "1/1h");
        assertThat(engine.check(CLIENT).allowed()).isTrue();

        CompletableFuture<Decision> inFlight = heldCheck(engine, store);      // denied by the store, not yet remembered
        engine.reset("per-ip", "203.0.113.5");                               // admin: unblock the client
        store.proceed.countDown();
        assertThat(inFlight.get(10, TimeUnit.SECONDS).allowed()).as("decided before the reset").isFalse();

        Decision after = engine.check(CLIENT);
        assertThat(after.allowed())
                .as("after the reset the key is fresh in the store; the denial cache must not deny it for an hour")
                .isTrue();
    }

    @Test
    void aResetIsNotUndoneByAPenaltyOfADenialInFlightWhenItRan() throws Exception {
        HoldingStore store = new HoldingStore(memory);
        Engine engine = Engine.builder().timeSource(time).store(store).denialCacheSize(0)
                .rule(Rule.builder("login").policy(Policy.parse("1/1m penalty 10m")).key(RequestView::remoteAddress)
                        .build())
                .build();
        assertThat(engine.check(CLIENT).allowed()).isTrue();
        assertThat(engine.check(CLIENT).allowed()).as("first denial: told to wait").isFalse();

        time.advance(Duration.ofSeconds(1));
        CompletableFuture<Decision> inFlight = heldCheck(engine, store);     // comes back too early: to be penalized
        engine.reset("login", "203.0.113.5");
        store.proceed.countDown();
        inFlight.get(10, TimeUnit.SECONDS);

        time.advance(Duration.ofSeconds(1));
        assertThat(engine.check(CLIENT).allowed()).as("the reset gave the client its quota back").isTrue();
        Decision firstDenialAfterReset = engine.check(CLIENT);
        assertThat(firstDenialAfterReset.allowed()).isFalse();
        assertThat(firstDenialAfterReset.retryAfterMicros())
                .as("the first denial after a reset is an ordinary one, not a penalty for a wait the reset cancelled")
                .isLessThanOrEqualTo(60_000_000);
    }

    @Test
    void anErrorWhileChargingAsTheProbeDoesNotLeaveTheBreakerOpenForGood() {
        HoldingStore store = new HoldingStore(memory);
        Engine engine = Engine.builder().timeSource(time).store(store).circuitBreaker(1, Duration.ofSeconds(1))
                .rule(Rule.builder("counted").policy(Policy.parse("100/1m")).key(RequestView::remoteAddress)
                        .countStatuses(Set.of(500)).build())
                .build();
        Decision admitted = engine.check(CLIENT);
        assertThat(admitted.allowed()).isTrue();

        store.fail = new StoreException("connection refused");
        engine.check(CLIENT);
        assertThat(engine.storeCircuit()).isEqualTo(CircuitBreaker.State.OPEN);
        store.fail = null;

        time.advance(Duration.ofSeconds(2));
        store.error = new StackOverflowError("a store's bug, as deep as it gets");
        assertThatThrownBy(() -> engine.charge(CLIENT, admitted, 500)).isInstanceOf(StackOverflowError.class);
        store.error = null;

        time.advance(Duration.ofSeconds(2));
        Decision later = engine.check(CLIENT);
        assertThat(later.outcomes().get(0).source())
                .as("the store answers again: the probe the charge took was given back")
                .isEqualTo(RuleOutcome.Source.STORE);
        assertThat(engine.storeCircuit()).isEqualTo(CircuitBreaker.State.CLOSED);
    }

    /** The control of the reset tests: without a reset, the denial of the held request is remembered as usual. */
    @Test
    void withoutAResetTheInFlightDenialIsRemembered() throws Exception {
        HoldingStore store = new HoldingStore(memory);
        Engine engine = engine(store, "1/1h");
        assertThat(engine.check(CLIENT).allowed()).isTrue();
        CompletableFuture<Decision> inFlight = heldCheck(engine, store);
        store.proceed.countDown();
        assertThat(inFlight.get(10, TimeUnit.SECONDS).allowed()).isFalse();
        assertThat(engine.check(CLIENT).allowed()).isFalse();
    }
}
