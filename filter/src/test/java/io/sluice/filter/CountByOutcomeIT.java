package io.sluice.filter;

import static org.assertj.core.api.Assertions.assertThat;

import io.restassured.config.HttpClientConfig;
import io.restassured.config.RestAssuredConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
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

    /**
     * An async request that times out, with no listener answering it, is answered 500 by the container after the
     * listeners' onTimeout: it is charged as 500 (as an exception escaping the application is), not as the status the
     * response had when it timed out.
     */
    @Test
    void anAsyncRequestThatTimesOutIsChargedWithTheContainersAnswer() throws Exception {
        Files.writeString(rules, """
                rules:
                  - name: failures
                    key: ip
                    limit: 1/1m
                    algorithm: fixed-window
                    count-status: [500]
                """);
        try (FilterServer server = FilterServer.start(Map.of("rules", rules.toString()))) {
            // its async cycle times out (FilterServer.EXPIRING_TIMEOUT_MILLIS); a cycle that never did (a timeout lost
            // by the container) fails here, on the read timeout, rather than waiting forever
            server.client().config(RestAssuredConfig.config().httpClient(HttpClientConfig.httpClientConfig()
                    .setParam("http.socket.timeout", (int) TimeUnit.SECONDS.toMillis(30))))
                    .get("/expiring").then().statusCode(500);
            // charged when the cycle completes, which may be just after the client read the response
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (server.door().inspect("failures", "127.0.0.1", null).remaining() != 0) {
                assertThat(System.nanoTime()).as("the 500 was charged").isLessThan(deadline);
                Thread.onSpinWait();
            }
            server.client().get("/").then().statusCode(429);
        }
    }
}
