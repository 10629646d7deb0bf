package io.sluice.core.algorithm;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import org.junit.jupiter.api.Test;

class ConcurrencyTest {

    private static final Concurrency LEASES = new Concurrency();
    private static final Policy TWO = Policy.parse("2 concurrent lease 30s");
    private static final long T0 = Timeline.at("0s");

    @Test
    void leasesAreTakenUpToTheLimitAndReleaseFreesOne() {
        Step<Concurrency.State> a = LEASES.acquire(null, T0, 1, TWO, "a");
        Step<Concurrency.State> b = LEASES.acquire(a.state(), T0, 1, TWO, "b");
        Step<Concurrency.State> c = LEASES.acquire(b.state(), T0, 1, TWO, "c");
        assertThat(a.outcome().remaining()).isEqualTo(1);
        assertThat(b.outcome()).extracting(Outcome::allowed, Outcome::remaining).containsExactly(true, 0L);
        assertThat(c.outcome().allowed()).isFalse();
        assertThat(c.outcome().retryAfterMicros()).as("at the latest when a lease expires").isEqualTo(30_000_000L);

        Concurrency.State afterRelease = LEASES.release(b.state(), T0 + 1_000_000, "b");
        Step<Concurrency.State> retried = LEASES.acquire(afterRelease, T0 + 1_000_000, 1, TWO, "c");
        assertThat(retried.outcome().allowed()).isTrue();
        assertThat(retried.state().ids()).containsExactly("a", "c");
    }

    @Test
    void aLeaseNeverReleasedExpires() {
        Concurrency.State held = LEASES.acquire(LEASES.acquire(null, T0, 1, TWO, "a").state(), T0, 1, TWO, "b").state();
        assertThat(LEASES.acquire(held, T0 + 29_999_999, 1, TWO, "c").outcome().allowed()).isFalse();
        assertThat(LEASES.acquire(held, T0 + 30_000_000, 1, TWO, "c").outcome().allowed()).as("node died").isTrue();
        assertThat(LEASES.ttlMicros(held, T0, TWO)).isEqualTo(30_000_000L);
    }

    @Test
    void weightsCountAndAWeightAboveTheLimitIsNever() {
        Step<Concurrency.State> heavy = LEASES.acquire(null, T0, 2, TWO, "heavy");
        assertThat(heavy.outcome().remaining()).isZero();
        assertThat(LEASES.acquire(heavy.state(), T0, 1, TWO, "x").outcome().allowed()).isFalse();
        assertThat(LEASES.acquire(null, T0, 3, TWO, "huge").outcome().never()).isTrue();
        Step<Concurrency.State> peek = LEASES.acquire(heavy.state(), T0, 0, TWO, "peek");
        assertThat(peek.outcome().allowed()).isTrue();
        assertThat(peek.state()).isSameAs(heavy.state());
    }

    @Test
    void releasingAnUnknownLeaseChangesNothingAndTheLastReleaseLeavesNoState() {
        Concurrency.State one = LEASES.acquire(null, T0, 1, TWO, "a").state();
        assertThat(LEASES.release(one, T0, "unknown")).isEqualTo(one);
        assertThat(LEASES.release(one, T0, "a")).isNull();
        assertThat(LEASES.release(null, T0, "a")).isNull();
    }
}
