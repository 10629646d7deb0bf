package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.internal.rules.QueuedLeases;
import io.sluice.core.policy.Policy;
import io.sluice.core.request.RequestMatcher;
import io.sluice.core.request.RequestView;
import io.sluice.core.Rule;
import io.sluice.core.config.ConfigException;
import io.sluice.core.key.KeyResolvers;
import io.sluice.core.testing.LogCapture;
import io.sluice.core.testing.ManualTimeSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A queue ({@code max-wait}) next to a concurrency limit whose lease is shorter than the longest wait: a request that
 * waits that long has lost its lease before it runs.
 */
class QueuedLeasesTest {

    /** Up to 19 minutes in line: a bucket of 20 that lets one through a minute (max-wait 1h is never reached). */
    private static final Rule QUEUE = Rule.builder("queue").policy("1/1m burst 20 max-wait 1h").build();
    /** Leases of one minute, the default. */
    private static final Rule IN_FLIGHT = Rule.builder("in-flight").policy("20 concurrent").build();

    private static final String EXPIRY = "its leases expire after 1m, but a request may wait up to 19m holding one in "
            + "the queue of rule \"queue\" (1/1m burst 20 max-wait 1h)";
    private static final String CONSEQUENCE = "a request that waits that long runs no longer counted in flight, so "
            + "\"in-flight\" admits more than 20";
    private static final String REMEDY = "a lease longer than the longest wait plus the longest response time, such as "
            + "\"20 concurrent lease 20m\", or a max-wait of \"queue\" below 1m";
    /** The warning when the rules may never meet. */
    private static final String WARNING = "rule \"in-flight\" (20 concurrent): " + EXPIRY + ": " + CONSEQUENCE
            + ". Harmless if no request matches both rules (their paths or methods differ). Otherwise set " + REMEDY;

    @Test
    void rulesThatBothApplyToEveryRequestAreRefusedNamingBothRulesAndTheirValues() {
        assertThatThrownBy(() -> QueuedLeases.check(List.of(QUEUE, IN_FLIGHT)))
                .isInstanceOf(ConfigException.class)
                .hasMessage("rule \"in-flight\": " + EXPIRY + ", and both rules apply to every request: " + CONSEQUENCE
                        + "; expected " + REMEDY + ", got \"20 concurrent\"");
        assertThat(QueuedLeases.check(List.of(QUEUE.withMode(Rule.Mode.SHADOW), IN_FLIGHT)))
                .as("a shadow queue holds no request: no lease waits in it").isEmpty();
        assertThatThrownBy(() -> QueuedLeases.check(List.of(IN_FLIGHT, QUEUE))).as("in either order")
                .isInstanceOf(ConfigException.class);
    }

    @Test
    void rulesThatMayNeverMeetAreAllowedWithAWarning() {
        Rule apiOnly = new Rule("queue", RequestMatcher.of(List.of("/api/**"), Set.of()), QUEUE.key(), QUEUE.policy(),
                null, 1, Rule.Mode.ENFORCE, Rule.FailureMode.ALLOW, Rule.MissingKey.SKIP);

        assertThat(QueuedLeases.check(List.of(apiOnly, IN_FLIGHT))).containsExactly(WARNING);
        assertThat(QueuedLeases.check(List.of(QUEUE, IN_FLIGHT.withMode(Rule.Mode.SHADOW))))
                .as("a shadow rule only reports: its numbers are off, nothing is admitted wrongly").containsExactly(
                        "rule \"in-flight\" (20 concurrent): " + EXPIRY + ": a request that waits that long runs no "
                        + "longer counted in flight, so \"in-flight\" would admit more than 20. It is in shadow mode: "
                        + "nothing is admitted wrongly, but it reports fewer would-be denials than it would make "
                        + "enforced. Otherwise set " + REMEDY);
    }

    @Test
    void theRulesOfOnePlaceAllApplyToEachOfItsRequestsWhateverTheirMatchers() {
        Rule apiOnly = new Rule("in-flight", RequestMatcher.of(List.of("/api/**"), Set.of()), IN_FLIGHT.key(),
                IN_FLIGHT.policy(), null, 1, Rule.Mode.ENFORCE, Rule.FailureMode.ALLOW, Rule.MissingKey.SKIP);
        assertThatThrownBy(() -> QueuedLeases.checkTogether("@RateLimit on Api.get", List.of(QUEUE, apiOnly), List.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessage("@RateLimit on Api.get: rule \"in-flight\": " + EXPIRY + ", and both rules apply to every"
                        + " request there: " + CONSEQUENCE + "; expected " + REMEDY + ", got \"20 concurrent\"");
        assertThatThrownBy(() -> QueuedLeases.checkTogether("@RateLimit on Api.get", List.of(QUEUE), List.of(IN_FLIGHT)))
                .as("beside a rule of every request").isInstanceOf(ConfigException.class);
        assertThat(QueuedLeases.checkTogether("@RateLimit on Api.get", List.of(QUEUE), List.of(apiOnly)))
                .as("beside a rule of some paths").containsExactly("@RateLimit on Api.get: " + WARNING);
        assertThat(QueuedLeases.checkTogether("@RateLimit on Api.get", List.of(), List.of(QUEUE, IN_FLIGHT)))
                .as("the others among themselves: checked where they are configured").isEmpty();
    }

    @Test
    void aLeaseLongerThanTheLongestWaitIsFine() {
        assertThat(QueuedLeases.check(List.of(QUEUE, Rule.builder("in-flight").policy("20 concurrent lease 20m").build())))
                .isEmpty();
        // max-wait 5m is never reached: a bucket of 5 at 10 a second queues a request at most 400 ms
        assertThat(QueuedLeases.check(List.of(Rule.builder("queue").policy("10/1s burst 5 max-wait 5m").build(),
                IN_FLIGHT))).isEmpty();
        // delay 19: only the 20th waits, 1 minute at most; a lease of 1m is still not longer
        assertThatThrownBy(() -> QueuedLeases.check(List.of(Rule.builder("queue")
                .policy("1/1m burst 21 max-wait 1h delay 19").build(), IN_FLIGHT))).isInstanceOf(ConfigException.class);
        assertThat(QueuedLeases.check(List.of(Rule.builder("queue").policy("1/1m burst 20 max-wait 1h delay 19").build(),
                IN_FLIGHT))).as("delay 19 of 20: nobody waits").isEmpty();
    }

    @Test
    void tiersCountWithTheirLongestQueueAndShortestLease() {
        Rule tieredQueue = new Rule("queue", RequestMatcher.ALL, QUEUE.key(), Policy.parse("10/1s burst 5 max-wait 5m"),
                new Rule.Tiers(KeyResolvers.parse("tiers.by", "header:X-Plan", null),
                        Map.of("batch", QUEUE.policy())), 1, Rule.Mode.ENFORCE, Rule.FailureMode.ALLOW,
                Rule.MissingKey.SKIP);
        assertThatThrownBy(() -> QueuedLeases.check(List.of(tieredQueue, IN_FLIGHT))).isInstanceOf(ConfigException.class)
                .hasMessageContaining("up to 19m");
    }

    /** Through a front door: refused at start-up, or logged once when the rules may never meet. */
    @Test
    void aFrontDoorRefusesOrWarnsWhenItsRulesAreLoaded() throws Exception {
        Path rules = Files.createTempFile("rules", ".yaml");
        try {
            Files.writeString(rules, """
                    rules:
                      - name: queue
                        limit: 1/1m burst 20 max-wait 1h
                      - name: in-flight
                        limit: 20 concurrent
                    """);
            assertThatThrownBy(() -> door(rules).close()).isInstanceOf(ConfigException.class)
                    .hasMessageContaining("rule \"in-flight\": " + EXPIRY);

            Files.writeString(rules, """
                    rules:
                      - name: queue
                        limit: 1/1m burst 20 max-wait 1h
                        paths: [/api/**]
                      - name: in-flight
                        limit: 20 concurrent
                    """);
            try (LogCapture log = new LogCapture("io.sluice"); FrontDoor door = door(rules)) {
                door.check(RequestView.builder("GET", "/api").remoteAddress("203.0.113.9").build());
                assertThat(log.warnings()).containsExactly("Sluice rate limiting: " + WARNING);
            }
        } finally {
            Files.deleteIfExists(rules);
        }
    }

    private static FrontDoor door(Path rules) {
        return FrontDoor.open(SluiceConfig.load(Parameters.of("sluice", Map.of("rules", rules.toString()), "test"),
                SluiceConfig.files()), new ManualTimeSource());
    }
}
