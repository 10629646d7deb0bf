package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.store.MemoryStore;
import io.sluice.core.testing.ManualTimeSource;
import java.time.Duration;
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
        Limiter leases = engine.limiter("leases", Policy.concurrent(1));
        assertThat(leases.tryAcquire("k")).isTrue();
        assertThat(leases.tryAcquire("k")).isFalse();
    }
}
