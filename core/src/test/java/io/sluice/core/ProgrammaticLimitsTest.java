package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.config.ConfigException;
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

    /**
     * Issue 30: {@code engine.inspect("partner-api", "account-42", null)}, as docs/programmatic-api.md wrote it, threw
     * {@code ConfigException} (no rule of that name). A limit is inspected by the name the programmatic API gave it,
     * on the memory store decided directly (a {@link KeyLimiter} keeping the key's cell) as through a store.
     */
    @Test
    void inspectShowsAKeysStateUnderALimitByItsNameWithoutConsuming() {
        Engine direct = Engine.builder().timeSource(time).store(MemoryStore.builder().timeSource(time).build()).build();
        for (Engine e : List.of(direct, engine)) {
            Limiter partner = e.limiter("partner-api", Policy.parse("100/1s"));
            partner.tryAcquire("account-42", 3);
            partner.key("account-7").tryAcquire(5);
            e.tryAcquire("geocoder", "k", twoPerMinute, 1);

            assertThat(e.inspect("partner-api", "account-42", null).remaining()).isEqualTo(97);
            assertThat(e.inspect("partner-api", "account-42", null).remaining()).as("consumes nothing").isEqualTo(97);
            assertThat(e.inspect("partner-api", "account-7", null).remaining()).as("a KeyLimiter's").isEqualTo(95);
            assertThat(e.inspect("geocoder", "k", null).remaining()).as("tryAcquire's").isEqualTo(1);
            e.reset("partner-api", "account-42");
            assertThat(e.inspect("partner-api", "account-42", null).remaining()).isEqualTo(100);
            assertThatThrownBy(() -> e.inspect("never-decided", "k", null)).isInstanceOf(ConfigException.class)
                    .hasMessageContaining("\"never-decided\"").hasMessageContaining("limiter(name, policy)");
            assertThatThrownBy(() -> e.inspect("partner-api", "k", "pro")).as("a limit has no tiers")
                    .isInstanceOf(ConfigException.class);
        }
    }

    @Test
    void theNamesInspectKnowsAreBoundedAndFollowTheLatestPolicy() {
        Engine direct = Engine.builder().timeSource(time).store(memory).build();
        direct.tryAcquire("limit", "k", twoPerMinute, 1);
        direct.tryAcquire("limit", "k", Policy.parse("5/1m").withAlgorithm(Algorithm.FIXED_WINDOW), 0);
        assertThat(direct.inspect("limit", "k", null).limit()).as("the policy it was last decided by").isEqualTo(5);
        for (int i = 1; i < ProgrammaticLimits.MAX_NAMES; i++) {
            direct.limiter("limit-" + i, twoPerMinute);
        }
        direct.limiter("one-too-many", twoPerMinute).tryAcquire("k");
        assertThat(direct.inspect("limit-" + (ProgrammaticLimits.MAX_NAMES - 1), "k", null).limit()).isEqualTo(2);
        assertThatThrownBy(() -> direct.inspect("one-too-many", "k", null)).isInstanceOf(ConfigException.class);
    }

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
