package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.PolicyParser;
import io.sluice.core.request.RequestView;
import io.sluice.core.testing.ManualTimeSource;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Issue 24: a concurrency limit's 429 said {@code Retry-After: 60} (its oldest lease's expiry) for requests that take
 * 1 s. The retry-after is the estimate of {@link HoldTimes}, capped by the leases' expiry.
 */
class ConcurrencyRetryAfterTest {

    private final ManualTimeSource time = new ManualTimeSource();
    private static final RequestView REQUEST = RequestView.builder("GET", "/").remoteAddress("10.0.0.1").build();

    private Engine engine(String notation) {
        return Engine.builder().timeSource(time)
                .rule(Rule.builder("work").policy(PolicyParser.parse("limit", notation, Algorithm.CONCURRENCY))
                        .key(RequestView::remoteAddress).build()).build();
    }

    @Test
    void beforeAnyRequestCompletedTheWaitIsHowLongTheLeaseHasBeenHeldAtLeastOneSecond() {
        Engine engine = engine("2 concurrent");
        engine.check(REQUEST);
        engine.check(REQUEST);

        Decision denied = engine.check(REQUEST);
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.retryAfterMicros()).as("not the lease's 60 s").isEqualTo(1_000_000);

        time.advance(Duration.ofSeconds(5));
        assertThat(engine.check(REQUEST).retryAfterMicros()).as("held 5 s so far: about as long again")
                .isEqualTo(5_000_000);
    }

    @Test
    void theWaitIsTheAverageTimeRequestsHeldTheirLeases() {
        Engine engine = engine("2 concurrent");
        for (int i = 0; i < 3; i++) {              // requests that take 1 s
            Decision a = engine.check(REQUEST);
            Decision b = engine.check(REQUEST);
            time.advance(Duration.ofSeconds(1));
            engine.release(a);
            engine.release(b);
        }
        Decision a = engine.check(REQUEST);
        engine.check(REQUEST);
        time.advance(Duration.ofMillis(300));

        Decision denied = engine.check(REQUEST);
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.retryAfterMicros()).isEqualTo(1_000_000);

        time.advance(Duration.ofSeconds(2));        // then one that took 2.3 s: the average moves by 1/8 of the step
        engine.release(a);
        assertThat(engine.check(REQUEST).allowed()).isTrue();
        assertThat(engine.check(REQUEST).retryAfterMicros()).isEqualTo(1_000_000 + 1_300_000 / 8);
    }

    @Test
    void theWaitIsNeverLaterThanTheLeasesExpiry() {
        Engine engine = engine("1 concurrent lease 5s");
        Decision slow = engine.check(REQUEST);
        time.advance(Duration.ofSeconds(8));        // released after its lease expired: a sample of 8 s
        engine.release(slow);
        engine.check(REQUEST);
        time.advance(Duration.ofMillis(4_500));

        Decision denied = engine.check(REQUEST);
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.retryAfterMicros()).as("the lease expires in 0.5 s").isEqualTo(500_000);
    }
}
