package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Policy;
import io.sluice.core.policy.Outcome;
import io.sluice.core.store.Check;
import io.sluice.core.store.CircuitBreaker;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.store.Store;
import io.sluice.core.store.StoreException;
import io.sluice.core.testing.ForwardingStore;
import io.sluice.core.testing.ManualTimeSource;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The programmatic API ({@code Engine.tryAcquire}, {@link Limiter}, {@link KeyLimiter}) decides through the guarded
 * path a request takes: denial cache, penalty, circuit breaker and a failure mode. Over a real {@link MemoryStore}
 * behind a switch that fails like an unreachable Redis and counts the calls that reach it.
 */
class ProgrammaticLimitsTest {

    private final ManualTimeSource time = new ManualTimeSource();
    private final MemoryStore memory = MemoryStore.builder().timeSource(time).build();
    private final AtomicInteger calls = new AtomicInteger();
    private final AtomicBoolean down = new AtomicBoolean();

    private final Store switchable = new ForwardingStore(memory) {
        @Override
        protected void beforeEvaluate(List<Check> checks) {
            calls.incrementAndGet();
            if (down.get()) {
                throw new StoreException("connection refused");
            }
        }
    };

    private final Engine engine = Engine.builder().timeSource(time).store(switchable).build();
    private final Policy twoPerMinute = Policy.parse("2/1m").withAlgorithm(Algorithm.FIXED_WINDOW);

    @Test
    void aDeniedKeyCostsNoStoreCallUntilItsRetryTimeOnEveryEntryPoint() {
        Limiter limiter = engine.limiter("partner", twoPerMinute);
        KeyLimiter handle = limiter.key("acct-1");
        List<Supplier<Outcome>> entryPoints = List.of(
                () -> engine.tryAcquire("partner", "acct-1", twoPerMinute, 1),
                () -> limiter.tryAcquire("acct-1", 1),
                () -> handle.tryAcquire(1));
        assertThat(engine.tryAcquire("partner", "acct-1", twoPerMinute, 1).allowed()).isTrue();
        assertThat(limiter.tryAcquire("acct-1")).isTrue();
        assertThat(handle.tryAcquire()).as("the store denies: remembered").isFalse();
        assertThat(calls).hasValue(3);

        time.advance(Duration.ofSeconds(30));
        for (int i = 0; i < 300; i++) {
            Outcome again = entryPoints.get(i % 3).get();
            assertThat(again.allowed()).isFalse();
            assertThat(again.retryAfterMicros()).isEqualTo(30_000_000);
        }
        assertThat(calls).as("hammering a denied key: no store call").hasValue(3);

        time.advance(Duration.ofSeconds(30));
        assertThat(handle.tryAcquire()).as("its retry time has come: the store is asked").isTrue();
        assertThat(calls).hasValue(4);

        handle.tryAcquire();
        assertThat(handle.tryAcquire()).isFalse();
        engine.reset("partner", "acct-1");
        assertThat(limiter.tryAcquire("acct-1")).as("a reset forgets the denial at once").isTrue();
        assertThat(calls).hasValue(7);
    }

    @Test
    void aStoreFailureIsAnsweredByTheFailureModeInsteadOfAnException() {
        Engine twoNodes = Engine.builder().timeSource(time).store(switchable).nodeCount(2).build();
        Policy ten = Policy.parse("10/1m").withAlgorithm(Algorithm.FIXED_WINDOW);
        down.set(true);

        Outcome open = twoNodes.tryAcquire("partner", "acct-1", ten, 1);
        assertThat(open.allowed()).as("the default, a rule's: allow").isTrue();
        assertThat(open.remaining()).isEqualTo(10);
        assertThat(twoNodes.limiter("partner", ten).tryAcquire("acct-1")).isTrue();
        assertThat(twoNodes.limiter("partner", ten).onStoreFailure()).isEqualTo(Rule.FailureMode.ALLOW);

        Limiter closed = twoNodes.limiter("partner", ten, Rule.FailureMode.DENY);
        Outcome denied = closed.tryAcquire("acct-1", 1);
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.retryAfterMicros()).isEqualTo(1_000_000);
        assertThat(closed.key("acct-1").tryAcquire()).as("a key handle answers its limiter's mode").isFalse();

        KeyLimiter local = twoNodes.limiter("partner", ten, Rule.FailureMode.LOCAL).key("acct-1");
        int allowed = 0;
        for (int i = 0; i < 10; i++) {
            allowed += local.tryAcquire() ? 1 : 0;
        }
        assertThat(allowed).as("this node's share of 10 on two nodes").isEqualTo(5);
        assertThatThrownBy(() -> twoNodes.limiter("partner", ten, null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theBreakerOpensOnProgrammaticCallsAndStopsCallingTheStore() {
        Limiter limiter = engine.limiter("partner", Policy.parse("100/1m"));
        down.set(true);
        for (int i = 0; i < 3; i++) {
            assertThat(limiter.tryAcquire("acct-1")).isTrue();
        }
        assertThat(engine.storeCircuit()).isEqualTo(CircuitBreaker.State.OPEN);
        for (int i = 0; i < 50; i++) {
            assertThat(engine.tryAcquire("partner", "acct-" + i, Policy.parse("100/1m"), 1).allowed()).isTrue();
        }
        assertThat(calls).as("open circuit: the store is not called").hasValue(3);

        down.set(false);
        time.advance(Duration.ofMillis(500));
        assertThat(limiter.tryAcquire("acct-1", 1).remaining()).as("the probe reaches the store").isEqualTo(99);
        assertThat(engine.storeCircuit()).isEqualTo(CircuitBreaker.State.CLOSED);
        assertThat(calls).hasValue(4);
    }

    @Test
    void aPolicysPenaltyBlocksAProgrammaticKeyThatComesBackTooSoonOnEveryStore() {
        for (Store store : List.of(switchable, memory)) {
            Engine on = Engine.builder().timeSource(time).store(store).build();
            Limiter login = on.limiter("login-" + store.getClass().getSimpleName(),
                    Policy.parse("2/1s burst 2 penalty 1m"));
            assertThat(login.tryAcquire("acct-1")).isTrue();
            assertThat(login.tryAcquire("acct-1")).isTrue();
            assertThat(login.tryAcquire("acct-1", 1).retryAfterMicros()).as("the ordinary wait").isEqualTo(500_000);

            time.advance(Duration.ofMillis(100));                        // did not wait: hammering
            assertThat(login.tryAcquire("acct-1", 1).retryAfterMicros()).as("penalized").isEqualTo(60_000_000);
            time.advance(Duration.ofSeconds(30));
            assertThat(login.key("acct-1").tryAcquire(1).retryAfterMicros()).as("still blocked")
                    .isEqualTo(30_000_000);
            time.advance(Duration.ofSeconds(30));
            assertThat(login.tryAcquire("acct-1")).as("the penalty is over").isTrue();
        }
    }
}
