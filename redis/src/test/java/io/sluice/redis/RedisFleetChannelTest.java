package io.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.store.FleetMessage;
import org.junit.jupiter.api.Test;

/** The fleet's messages as text on the channel: each kind read back as it was sent; another program's ignored. */
class RedisFleetChannelTest {

    private static FleetMessage roundTrip(FleetMessage m) {
        return RedisFleetChannel.decode(RedisFleetChannel.encode(m));
    }

    @Test
    void aPenaltyReadsBackAsItWasSent() {
        FleetMessage m = new FleetMessage(FleetMessage.Kind.PENALTY, "node-a", "api", "k|with|bars", 1_700_000_000_000L);
        assertThat(RedisFleetChannel.encode(m)).isEqualTo("P|node-a|1700000000000|3|apik|with|bars");
        assertThat(roundTrip(m)).isEqualTo(m);
    }

    @Test
    void aResetReadsBackAsItWasSent() {
        FleetMessage m = new FleetMessage(FleetMessage.Kind.RESET, "node-a", "per-ip", "203.0.113.9", 0);
        assertThat(RedisFleetChannel.encode(m)).startsWith("R|");
        assertThat(roundTrip(m)).isEqualTo(m);
    }

    @Test
    void aChangeOfTheSettingsReadsBackWithAnEmptyRuleAndKey() {
        FleetMessage m = new FleetMessage(FleetMessage.Kind.SETTINGS, "node-a", "", "", 0);
        assertThat(RedisFleetChannel.encode(m)).isEqualTo("S|node-a|0|0|");
        assertThat(roundTrip(m)).isEqualTo(m);
    }

    @Test
    void onlyAChangeOfTheSettingsNamesNoRule() {
        assertThat(RedisFleetChannel.decode("P|node-a|0|0|key")).as("a penalty names its rule").isNull();
        assertThat(RedisFleetChannel.decode("R|node-a|0|0|key")).as("a reset names its rule").isNull();
        assertThat(RedisFleetChannel.decode("S|node-a|0|0|")).isNotNull();
    }

    @Test
    void messagesThatAreNotOursAreIgnored() {
        assertThat(RedisFleetChannel.decode("hello")).isNull();
        assertThat(RedisFleetChannel.decode("X|node-a|0|0|")).isNull();
        assertThat(RedisFleetChannel.decode("S|node-a|0|-1|")).isNull();
        assertThat(RedisFleetChannel.decode("S|node-a|0|1|")).as("a rule longer than the text").isNull();
        assertThat(RedisFleetChannel.decode("S|node-a|zero|0|")).isNull();
        assertThat(RedisFleetChannel.decode("S|node-a|0|0")).isNull();
    }
}
