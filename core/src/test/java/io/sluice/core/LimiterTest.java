package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.store.MemoryStore;
import io.sluice.core.testing.ManualTimeSource;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class LimiterTest {

    private final ManualTimeSource time = new ManualTimeSource();

    @Test
    void aLimiterIsTryAcquireUnderItsNameAndPolicy() {
        Engine engine = Engine.builder().timeSource(time).build();
        Limiter stripe = engine.limiter("stripe", Policy.parse("2/1s"));

        assertThat(stripe.tryAcquire("acct-42")).isTrue();
        assertThat(engine.tryAcquire("stripe", "acct-42", Policy.parse("2/1s"), 1).remaining())
                .as("the handle and the engine share the key's state").isZero();
        Outcome denied = stripe.tryAcquire("acct-42", 1);
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.retryAfterMicros()).isEqualTo(500_000);
        assertThat(stripe.tryAcquire("acct-7")).as("another key").isTrue();

        time.advance(Duration.ofMillis(500));
        assertThat(stripe.tryAcquire("acct-42")).isTrue();
        assertThat(stripe.name()).isEqualTo("stripe");
        assertThat(stripe.policy()).isEqualTo(Policy.parse("2/1s"));
    }

    @Test
    void aLimiterOverAnotherStoreOrAlgorithmTakesTheGeneralPath() {
        Engine engine = Engine.builder().timeSource(time).store(MemoryStore.builder().timeSource(time).build()).build();
        Limiter log = engine.limiter("log", Policy.parse("2/1s").withAlgorithm(Algorithm.SLIDING_LOG));
        assertThat(log.tryAcquire("k")).isTrue();
        assertThat(log.tryAcquire("k")).isTrue();
        assertThat(log.tryAcquire("k")).isFalse();
    }

    @Test
    void aLimiterOverAConcurrencyPolicyIsRefusedItCouldNeverReleaseItsLeases() {
        Engine engine = Engine.builder().timeSource(time).build();
        assertThatThrownBy(() -> engine.limiter("leases", Policy.concurrent(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leases").hasMessageContaining("1 concurrent").hasMessageContaining("release");
        assertThatThrownBy(() -> engine.limiter(null, Policy.parse("2/1s"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> engine.limiter("x", null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void tryAcquireValidatesItsArgumentsOnEveryPath() {
        Policy policy = Policy.parse("2/1s");
        for (Engine engine : List.of(Engine.builder().timeSource(time).build(),
                Engine.builder().timeSource(time).store(MemoryStore.builder().timeSource(new ManualTimeSource()).build())
                        .build())) {
            assertThatThrownBy(() -> engine.tryAcquire(null, "k", policy, 1)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> engine.tryAcquire("n", null, policy, 1)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> engine.tryAcquire("n", "k", null, 1)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> engine.tryAcquire("n", "k", policy, -1))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
            Limiter limiter = engine.limiter("n", policy);
            assertThatThrownBy(() -> limiter.tryAcquire(null)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> limiter.tryAcquire("k", -1)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void engineTryAcquireOverAConcurrencyPolicyStillTakesALeaseThatExpires() {
        Engine engine = Engine.builder().timeSource(time).store(MemoryStore.builder().timeSource(time).build()).build();
        Policy one = Policy.parse("1 concurrent lease 10s");
        assertThat(engine.tryAcquire("leases", "k", one, 1).allowed()).isTrue();
        assertThat(engine.tryAcquire("leases", "k", one, 1).allowed()).isFalse();
        time.advance(Duration.ofSeconds(10));
        assertThat(engine.tryAcquire("leases", "k", one, 1).allowed()).as("the lease expired").isTrue();
    }
}
