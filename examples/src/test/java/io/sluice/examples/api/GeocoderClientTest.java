package io.sluice.examples.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.Engine;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class GeocoderClientTest {

    private final AtomicLong nowMicros = new AtomicLong(1_700_000_000_000_000L);
    private final List<String> partnerCalls = new ArrayList<>();
    private final GeocoderClient geocoder = new GeocoderClient(Engine.builder().timeSource(nowMicros::get).build(),
            address -> {
                partnerCalls.add(address);
                return "52.52,13.40";
            });

    @Test
    void tenCallsASecondReachThePartnerAndTheEleventhWaitsInstead() {
        for (int i = 0; i < 10; i++) {
            assertThat(geocoder.geocode("acct-42", "Main St " + i).result()).contains("52.52,13.40");
        }

        GeocoderClient.Answer eleventh = geocoder.geocode("acct-42", "Main St 10");

        assertThat(eleventh.result()).isEmpty();
        assertThat(eleventh.retryAfter()).contains(Duration.ofMillis(100));   // GCRA 10/1s: one more every 100 ms
        assertThat(partnerCalls).hasSize(10);
    }

    @Test
    void afterTheWaitTheAccountMayCallAgain() {
        for (int i = 0; i < 11; i++) {
            geocoder.geocode("acct-7", "Elm St");
        }

        nowMicros.addAndGet(100_000);

        assertThat(geocoder.geocode("acct-7", "Elm St").result()).isPresent();
    }

    @Test
    void accountsHaveQuotasOfTheirOwn() {
        for (int i = 0; i < 10; i++) {
            geocoder.geocode("acct-1", "Oak St");
        }

        assertThat(geocoder.geocode("acct-2", "Oak St").result()).isPresent();
    }
}
