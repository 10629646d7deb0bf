package io.sluice.core.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.Decision;
import io.sluice.core.RequestView;
import io.sluice.core.config.Parameters;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.testing.ManualTimeSource;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FrontDoorTest {

    private static final RequestView CLIENT = RequestView.builder("GET", "/api").remoteAddress("203.0.113.9").build();

    /** A fixed window of 2 per second; the clock starts on a whole second. */
    private static FrontDoor door(ManualTimeSource time) {
        return FrontDoor.open(SluiceConfig.load(Parameters.of("sluice",
                Map.of("limit", "2/1s", "algorithm", "fixed-window"), "test"), SluiceConfig.files()), time);
    }

    @Test
    void epochValuesCountFromTheDecisionNotFromWhenTheResponseIsWritten() {
        ManualTimeSource time = new ManualTimeSource();
        long windowEnd = ManualTimeSource.START_MICROS + 1_000_000;
        time.advanceMicros(250_000);
        try (FrontDoor door = door(time)) {
            Decision allowed = door.check(CLIENT);
            time.advanceMicros(1);      // the response is written a moment after the decision
            Map<String, String> headers = new LinkedHashMap<>();
            door.allowedHeaders(allowed, CLIENT, headers::put);

            assertThat(allowed.atMicros()).isEqualTo(ManualTimeSource.START_MICROS + 250_000);
            assertThat(headers).containsEntry("X-RateLimit-Reset", Long.toString(windowEnd / 1_000_000))
                    .containsEntry("RateLimit", "\"per-ip\";r=1;t=1");

            door.check(CLIENT);
            Decision denied = door.check(CLIENT);
            time.advanceMicros(1);
            Reply reply = door.reply(denied, CLIENT);

            assertThat(reply.status()).isEqualTo(429);
            assertThat(reply.headers()).contains(new Reply.Header("X-RateLimit-Reset", Long.toString(windowEnd / 1_000_000)));
            assertThat(reply.body()).contains("\"renewal\":" + windowEnd / 1_000 + ",");
        }
    }
}
