package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import io.sluice.core.testing.ManualTimeSource;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RateLimitExceededExceptionTest {

    private final ManualTimeSource time = new ManualTimeSource();
    private final Engine engine = Engine.builder().timeSource(time).build();

    @Test
    void aDenialThrowsWithTheLimitsNameNumbersAndRetryAfterButNotTheKey() {
        Limiter stripe = engine.limiter("stripe", Policy.parse("2/1s"));       // GCRA: one back every 500 ms
        assertThat(stripe.tryAcquireOrThrow("acct-4711").allowed()).isTrue();
        assertThat(stripe.tryAcquireOrThrow("acct-4711").remaining()).isZero();

        RateLimitExceededException e = catchThrowableOfType(() -> stripe.tryAcquireOrThrow("acct-4711"),
                RateLimitExceededException.class);

        assertThat(e).isInstanceOf(RuntimeException.class);
        assertThat(e.limitName()).isEqualTo("stripe");
        assertThat(e.limit()).isEqualTo(2);
        assertThat(e.remaining()).isZero();
        assertThat(e.retryAfter()).isEqualTo(Duration.ofMillis(500));
        assertThat(e.retryable()).isTrue();
        assertThat(e.getMessage()).isEqualTo("rate limit \"stripe\" exceeded (limit 2, 0 remaining): retry after PT0.5S")
                .doesNotContain("acct-4711");
        assertThat(e.getStackTrace()).isEmpty();
        assertThat(e.getCause()).isNull();
    }

    @Test
    void theDenialTookNothingAndThePermitComesBackAtTheRetryTime() {
        KeyLimiter account = engine.limiter("stripe", Policy.parse("1/1s")).key("acct-1");
        account.tryAcquireOrThrow();
        RateLimitExceededException e = catchThrowableOfType(account::tryAcquireOrThrow, RateLimitExceededException.class);
        assertThat(e.retryAfter()).isEqualTo(Duration.ofSeconds(1));
        time.advanceMicros(999_999);
        assertThatThrownBy(account::tryAcquireOrThrow).isInstanceOf(RateLimitExceededException.class);
        time.advanceMicros(1);
        assertThat(account.tryAcquireOrThrow().allowed()).isTrue();
    }

    @Test
    void aCostAboveTheCapacityIsNeverRetryable() {
        KeyLimiter account = engine.limiter("bulk", Policy.parse("5/1s")).key("acct-1");
        RateLimitExceededException e = catchThrowableOfType(() -> account.tryAcquireOrThrow(6),
                RateLimitExceededException.class);
        assertThat(e.retryAfter()).isEqualTo(RateLimitExceededException.NEVER);
        assertThat(e.retryable()).isFalse();
        assertThat(e.getMessage()).isEqualTo("rate limit \"bulk\" exceeded (limit 5, 5 remaining): the cost is above "
                + "what the limit ever allows, retrying cannot help");
    }

    @Test
    void anAllowedOutcomeIsNoDenialAndANegativeCostIsRefused() {
        assertThatThrownBy(() -> RateLimitExceededException.of("x", Outcome.allow(1, 0, 1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> engine.limiter("x", Policy.parse("1/1s")).tryAcquireOrThrow("k", -1))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
