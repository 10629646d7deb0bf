package io.sluice.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.testing.ManualTimeSource;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class CircuitBreakerTest {

    private final ManualTimeSource time = new ManualTimeSource();
    private final CircuitBreaker breaker = new CircuitBreaker("redis", 3, 500_000, time);
    private final StoreException down = new StoreException("connection refused");

    @Test
    void opensAfterConsecutiveFailuresAndShortCircuits() {
        for (int i = 0; i < 3; i++) {
            assertThat(breaker.tryAcquire()).isTrue();
            breaker.onFailure(down);
        }
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
        assertThat(breaker.tryAcquire()).as("open: no call goes through").isFalse();
    }

    @Test
    void aSuccessInBetweenResetsTheCount() {
        breaker.onFailure(down);
        breaker.onFailure(down);
        breaker.onSuccess();
        breaker.onFailure(down);
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
    }

    @Test
    void afterTheCoolDownOneProbeGoesThroughAndClosesOnSuccess() {
        for (int i = 0; i < 3; i++) {
            breaker.onFailure(down);
        }
        time.advance(Duration.ofMillis(499));
        assertThat(breaker.tryAcquire()).isFalse();
        time.advance(Duration.ofMillis(1));

        assertThat(breaker.tryAcquire()).as("the probe").isTrue();
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.HALF_OPEN);
        assertThat(breaker.tryAcquire()).as("only one probe at a time").isFalse();

        breaker.onSuccess();
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
        assertThat(breaker.tryAcquire()).isTrue();
    }

    @Test
    void aFailedProbeOpensAgainForAnotherCoolDown() {
        for (int i = 0; i < 3; i++) {
            breaker.onFailure(down);
        }
        time.advance(Duration.ofMillis(500));
        assertThat(breaker.tryAcquire()).isTrue();
        breaker.onFailure(down);

        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
        assertThat(breaker.tryAcquire()).isFalse();
        time.advance(Duration.ofMillis(500));
        assertThat(breaker.tryAcquire()).isTrue();
    }
}
