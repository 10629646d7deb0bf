package io.sluice.filter;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A rule that counts only failed logins: checked before each attempt, charged after a 401 or 403. */
class CountByOutcomeIT {

    private Path rules;

    @BeforeEach
    void writeRules() throws Exception {
        rules = Files.createTempFile("rules", ".yaml");
        Files.writeString(rules, """
                rules:
                  - name: failed-logins
                    paths: [/sign-in]
                    methods: [POST]
                    key: header:X-User+ip
                    limit: 3/1m
                    algorithm: fixed-window
                    count-status: [401, 403]
                """);
    }

    @AfterEach
    void deleteRules() throws Exception {
        Files.deleteIfExists(rules);
    }

    @Test
    void onlyFailedLoginsCount() throws Exception {
        try (FilterServer server = FilterServer.start(Map.of("rules", rules.toString()))) {
            for (int i = 0; i < 10; i++) {
                server.client().header("X-User", "ada").header("X-Password", "secret").post("/sign-in").then().statusCode(200);
            }
            for (int i = 0; i < 3; i++) {
                server.client().header("X-User", "ada").header("X-Password", "guess").post("/sign-in").then().statusCode(401);
            }
            server.client().header("X-User", "ada").header("X-Password", "secret").post("/sign-in").then()
                    .statusCode(429).header("Retry-After", "60");
            server.client().header("X-User", "grace").header("X-Password", "guess").post("/sign-in").then()
                    .statusCode(401);                                     // another user is counted apart
            server.client().header("X-User", "ada").get("/sign-in").then().statusCode(401);   // only POST counts

            server.clock.advance(Duration.ofMinutes(1));
            server.client().header("X-User", "ada").header("X-Password", "secret").post("/sign-in").then().statusCode(200);
        }
    }

    @Test
    void aDeniedAttemptIsNotChargedAgain() throws Exception {
        Files.writeString(rules, Files.readString(rules).replace("fixed-window", "sliding-log"));
        try (FilterServer server = FilterServer.start(Map.of("rules", rules.toString()))) {
            for (int i = 0; i < 3; i++) {
                server.client().header("X-User", "ada").post("/sign-in").then().statusCode(401);
            }
            server.clock.advance(Duration.ofSeconds(30));
            for (int i = 0; i < 5; i++) {
                server.client().header("X-User", "ada").post("/sign-in").then().statusCode(429).header("Retry-After", "30");
            }
            server.clock.advance(Duration.ofSeconds(30));   // the three failures leave the sliding minute; the denials never entered it
            server.client().header("X-User", "ada").post("/sign-in").then().statusCode(401);
            server.client().header("X-User", "ada").header("X-Password", "secret").post("/sign-in").then().statusCode(200);
        }
    }
}
