package io.sluice.jaxrs.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.Decision;
import io.sluice.core.request.RequestView;
import io.sluice.http.Parameters;
import io.sluice.http.SluiceConfig;
import io.sluice.http.FrontDoor;
import io.sluice.core.testing.ManualTimeSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A request's completion releases its leases and charges its outcome once, however many paths reach its end. */
class CompletionTest {

    private static final RequestView CLIENT = RequestView.builder("GET", "/api/reports").remoteAddress("203.0.113.9")
            .build();

    @TempDir
    Path dir;

    /** One request in flight, and two 409s an hour (counted by outcome). */
    private FrontDoor door(ManualTimeSource time) throws Exception {
        Path rules = dir.resolve("rules.yaml");
        Files.writeString(rules, """
                rules:
                  - name: in-flight
                    limit: 1 concurrent
                  - name: conflicts
                    limit: 2/1h
                    algorithm: sliding-log
                    count-status: [409]
                """);
        return FrontDoor.open(SluiceConfig.load(Parameters.of("sluice", Map.of("rules", rules.toString()), "test"),
                SluiceConfig.files()), time);
    }

    @Test
    void completingTwiceReleasesAndChargesOnce() throws Exception {
        try (FrontDoor door = door(new ManualTimeSource())) {
            Decision first = door.check(CLIENT);
            assertThat(first.allowed()).isTrue();
            assertThat(door.check(CLIENT).allowed()).as("one in flight").isFalse();
            Completion completion = new Completion(door, CLIENT, first);

            completion.complete(409);
            completion.complete(409);          // the end of the request, after the response filter

            assertThat(completion.done()).isTrue();
            Decision second = door.check(CLIENT);
            assertThat(second.allowed()).as("released, and one 409 of two counted").isTrue();
            new Completion(door, CLIENT, second).complete(200);
            assertThat(door.check(CLIENT).allowed()).as("a 200 counts nothing").isTrue();
        }
    }

    @Test
    void theStatusTheLastResponseFilterSawIsChargedRatherThanTheFallback() throws Exception {
        try (FrontDoor door = door(new ManualTimeSource())) {
            for (int i = 0; i < 2; i++) {
                Completion completion = new Completion(door, CLIENT, door.check(CLIENT));
                completion.status(409);
                completion.complete(500);
            }
            assertThat(door.check(CLIENT).allowed()).as("two 409s counted").isFalse();
        }
    }
}
