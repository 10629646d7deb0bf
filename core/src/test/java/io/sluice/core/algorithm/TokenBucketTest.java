package io.sluice.core.algorithm;

import static io.sluice.core.algorithm.FixedWindowTest.times;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Policy;
import org.junit.jupiter.api.Test;

class TokenBucketTest {

    private static final TokenBucket BUCKET = new TokenBucket();

    @Test
    void burstThenSteadyRate() {
        Timeline.of(BUCKET, bucket("5/10s burst 20"))
                .expect(times("0s", 19, "allow"))
                .expect("0s allow remaining=0 reset=40s", "0s deny remaining=0 retry=2s", "1s deny retry=1s")
                .expect("2s allow remaining=0", "2s deny retry=2s", "4s allow", "6s allow", "7999999us deny retry=1us");
    }

    @Test
    void refillKeepsFractionsOfAToken() {
        // 1 token per second into a bucket of 2: the half second left over at 1.5 s counts towards the next token
        Timeline.of(BUCKET, bucket("1/1s burst 2"))
                .expect("0s cost=2 allow", "1500ms allow", "1999ms deny retry=1ms", "2000ms allow");
        // a full bucket overflows: time spent full is not saved up
        Timeline.of(BUCKET, bucket("1/1s"))
                .expect("0s allow", "1500ms allow", "2499ms deny retry=1ms", "2500ms allow");
    }

    @Test
    void tenPerMinuteStartsFullAndRefillsOneEverySixSeconds() {
        Timeline.of(BUCKET, bucket("10/1m"))
                .expect(times("0s", 10, "allow"))
                .expect("1s deny retry=5s", "6s allow", "30s cost=4 allow remaining=0", "30s deny retry=6s");
    }

    @Test
    void costAboveTheCapacityIsNeverAndCostZeroPeeks() {
        Timeline.of(BUCKET, bucket("5/1s burst 8"))
                .expect("0s cost=9 deny retry=never remaining=8", "0s cost=8 allow remaining=0",
                        "0s cost=0 allow remaining=0 reset=1600ms", "0s cost=1 deny retry=200ms");
    }

    @Test
    void aClockGoingBackwardsRefillsNothing() {
        Timeline.of(BUCKET, bucket("1/1s"))
                .expect("10s allow", "5s deny retry=6s", "10s deny retry=1s", "11s allow");
    }

    @Test
    void stateLivesUntilTheBucketIsFull() {
        Policy policy = bucket("5/10s burst 20");
        Timeline<TokenBucket.State> t = Timeline.of(BUCKET, policy).expect("0s cost=3 allow");
        assertThat(BUCKET.ttlMicros(t.state(), Timeline.at("0s"), policy)).isEqualTo(6_000_000L);
    }

    static Policy bucket(String notation) {
        return Policy.parse(notation).withAlgorithm(Algorithm.TOKEN_BUCKET);
    }
}
