package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The estimate of which keys come often enough to lease, on a clock driven by hand. */
class KeyRatesTest {

    private static final long LEASE = 100_000;

    private final KeyRates rates = new KeyRates();

    @Test
    void aKeySeenTwiceALeaseTimeNeverTurnsHot() {
        long now = 1_000_000_000;
        for (int i = 0; i < 1_000; i++) {
            assertThat(rates.hot("r", "k", LEASE, now)).as("request %d", i).isFalse();
            now += LEASE / 2;
        }
    }

    @Test
    void aKeyTurnsHotAfterAFewRequestsInALeaseTimeAndColdOnceItStops() {
        long now = 1_000_000_000;
        int seen = 0;
        while (!rates.hot("r", "k", LEASE, now)) {
            seen++;
            now += LEASE / 20;                     // 20 per lease time
        }
        assertThat(seen).isBetween(KeyRates.HOT - 1, 2 * KeyRates.HOT);
        for (int i = 0; i < 1_000; i++) {
            assertThat(rates.hot("r", "k", LEASE, now)).isTrue();
            now += LEASE / 20;
        }
        now += 10 * LEASE;                          // quiet for ten lease times
        assertThat(rates.hot("r", "k", LEASE, now)).isFalse();
    }

    /** Keys that share a slot do not add up: a million keys at one instant make none of them hot. */
    @Test
    void aMillionKeysSeenOnceMakeNoKeyHotInATableOfFixedSize() {
        long now = 1_000_000_000;
        for (int i = 0; i < 1_000_000; i++) {
            assertThat(rates.hot("r", "client-" + i, LEASE, now)).as("client-%d", i).isFalse();
        }
        assertThat(rates.slotsInUse()).isLessThanOrEqualTo(KeyRates.SLOTS);
    }

    /** A busy key keeps its slot against the cold keys that share it: 20 requests per lease time among 40,000. */
    @Test
    void aHotKeyStaysHotAmongManyColdOnes() {
        long now = 1_000_000_000;
        for (int i = 0; i < 2 * KeyRates.HOT; i++) {
            rates.hot("r", "hot", LEASE, now);
        }
        for (int round = 0; round < 200; round++) {
            for (int i = 0; i < 2_000; i++) {
                rates.hot("r", "cold-" + (round * 2_000 + i), LEASE, now);
            }
            assertThat(rates.hot("r", "hot", LEASE, now)).as("round %d", round).isTrue();
            now += LEASE / 20;
        }
    }
}
