package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import org.junit.jupiter.api.Test;

/** One key's blocks, driven by hand: a permit never outlives the block it came from. */
class LeasePoolTest {

    private static final Policy POLICY = Policy.parse("1000/1s leased 100ms");
    private static final Outcome TAKEN = Outcome.allow(900, 500, 1_000);

    private final LeaseCounts.Counter counter = new LeaseCounts.Counter();

    private static Moment at(long micros) {
        return new Moment(micros, micros);
    }

    private int spendAll(LeasePool pool, long micros) {
        int n = 0;
        while (pool.trySpend(1, at(micros), counter) != null) {
            n++;
        }
        return n;
    }

    /** Block A of 5 ends at 100 ms, block B of 10 at 150 ms: A's permits given back must not live on in B. */
    @Test
    void aPermitGivenBackNeverOutlivesItsBlock() {
        LeasePool pool = new LeasePool(POLICY, 0);
        pool.landed(5, at(100_000), TAKEN, 0, at(0), counter);
        pool.landed(10, at(150_000), TAKEN, 50_000, at(50_000), counter);
        LeasePool.Spend[] spent = new LeasePool.Spend[5];
        for (int i = 0; i < 5; i++) {
            spent[i] = pool.trySpend(1, at(60_000), counter);       // A's last five: B is in use now
        }
        for (LeasePool.Spend s : spent) {
            pool.refund(s, 1, at(60_000), counter);                 // another rule denied the request
        }
        assertThat(spendAll(pool, 120_000)).as("after A's end only B's ten").isEqualTo(10);
        assertThat(counter.read().permitsLapsed()).isEqualTo(5);
    }

    @Test
    void aBlockThatEndedBeforeItLandedLapsesWhole() {
        LeasePool pool = new LeasePool(POLICY, 0);
        pool.landed(50, at(100_000), TAKEN, 0, at(100_000), counter);
        assertThat(pool.held()).isZero();
        assertThat(spendAll(pool, 100_000)).isZero();
        assertThat(counter.read().permitsLapsed()).isEqualTo(50);
    }

    @Test
    void aBlockEndsAtTheFirstOfItsTwoClocks() {
        LeasePool pool = new LeasePool(POLICY, 0);
        pool.landed(50, at(100_000), TAKEN, 0, at(0), counter);
        assertThat(pool.trySpend(1, new Moment(10_000, 100_000), counter)).as("monotonic clock past the end").isNull();
        LeasePool other = new LeasePool(POLICY, 0);
        other.landed(50, at(100_000), TAKEN, 0, at(0), counter);
        assertThat(other.trySpend(1, new Moment(100_000, 10_000), counter)).as("engine's clock past the end").isNull();
        assertThat(other.trySpend(1, new Moment(99_999, 10_000), counter)).isNull();     // lapsed already
        LeasePool third = new LeasePool(POLICY, 0);
        third.landed(50, at(100_000), TAKEN, 0, at(0), counter);
        assertThat(third.trySpend(1, new Moment(99_999, 99_999), counter)).isNotNull();
    }
}
