package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.Decision;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import io.sluice.core.request.RequestView;
import io.sluice.core.Rule;
import io.sluice.core.RuleOutcome;
import io.sluice.core.config.ConfigException;
import io.sluice.core.key.KeyResolvers;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ResponderTest {

    /** 2023-11-14T00:00:00Z plus 250 ms, in microseconds. */
    private static final long NOW = 1_699_920_000_000_000L + 250_000;
    /** A fixed window, whose {@code t} is the reset (or retry) time in both drafts: the numbers below fit it. */
    private static final Rule PER_IP = Rule.builder("per-ip")
            .policy(io.sluice.core.policy.PolicyParser.parse("limit", "100/1m", io.sluice.core.policy.Algorithm.FIXED_WINDOW))
            .build();
    private static final RequestView REQUEST = RequestView.builder("GET", "/").remoteAddress("203.0.113.9")
            .header("X-Api-Key", "secret-key-123").build();
    private static final Responder DEFAULTS = Responder.builder().build();

    private static Decision decision(Rule rule, Outcome outcome) {
        return decision(rule, rule.policy(), outcome, RuleOutcome.Source.STORE);
    }

    private static Decision decision(Rule rule, Policy policy, Outcome outcome, RuleOutcome.Source source) {
        return Decision.of(List.of(new RuleOutcome(rule, policy, outcome, source)), List.of(), NOW);
    }

    @Test
    void anAllowedRequestProceedsWithBothHeaderStylesOfTheBindingRule() {
        Reply reply = DEFAULTS.reply(decision(PER_IP, Outcome.allow(100, 42, 16_200_000)), REQUEST, NOW);

        assertThat(reply.proceed()).isTrue();
        assertThat(reply.body()).isNull();
        assertThat(reply.headers()).containsExactly(
                new Reply.Header("RateLimit-Policy", "\"per-ip\";q=100;w=60"),
                new Reply.Header("RateLimit", "\"per-ip\";r=42;t=17"),
                new Reply.Header("X-RateLimit-Limit", "100"),
                new Reply.Header("X-RateLimit-Remaining", "42"),
                new Reply.Header("X-RateLimit-Reset", "1699920017"));
    }

    @Test
    void aDeniedRequestGets429WithRetryAfterNoStoreAndTheErrorEnvelope() {
        Reply reply = DEFAULTS.reply(decision(PER_IP, Outcome.deny(100, 0, 150_500_000, 150_500_000)), REQUEST, NOW);

        assertThat(reply.proceed()).isFalse();
        assertThat(reply.status()).isEqualTo(429);
        assertThat(reply.header("RateLimit")).isEqualTo("\"per-ip\";r=0;t=151");
        assertThat(reply.header("Retry-After")).isEqualTo("151");
        assertThat(reply.header("Cache-Control")).isEqualTo("no-store");
        assertThat(reply.header("X-RateLimit-Reset")).isEqualTo("1699920151");
        assertThat(reply.contentType()).isEqualTo("application/json");
        assertThat(reply.body()).isEqualTo("{\"error\":{\"code\":\"rate_limited\",\"message\":\"Request quota exceeded. "
                + "Wait 3 minutes and try again.\",\"context\":{\"renewal\":1699920150750,\"policy\":\"per-ip\","
                + "\"limit\":100,\"remaining\":0}}}");
    }

    @Test
    void retryAfterIsWholeSecondsRoundedUpAtLeastOneAndNeverBeforeT() {
        for (long retryMicros : new long[] {1, 999_999, 1_000_000, 1_000_001, 59_000_000}) {
            Reply reply = DEFAULTS.reply(decision(PER_IP, Outcome.deny(100, 0, 60_000_000, retryMicros)), REQUEST, NOW);
            long retryAfter = Long.parseLong(reply.header("Retry-After"));
            long t = Long.parseLong(reply.header("RateLimit").replaceAll(".*;t=", ""));

            assertThat(retryAfter).as("retry %d µs", retryMicros)
                    .isEqualTo(Math.max(1, (retryMicros + 999_999) / 1_000_000))
                    .isGreaterThanOrEqualTo(t);
        }
    }

    @Test
    void theProblemBodyUsesTheDraftsQuotaExceededTypeAndListsEveryViolatedPolicy() {
        Rule perKey = Rule.builder("per-key").policy("10/1s").build();
        Decision d = Decision.of(List.of(
                new RuleOutcome(PER_IP, PER_IP.policy(), Outcome.deny(100, 0, 5_000_000, 5_000_000), RuleOutcome.Source.STORE),
                new RuleOutcome(perKey, perKey.policy(), Outcome.deny(10, 0, 1_000_000, 1_000_000), RuleOutcome.Source.STORE)),
                List.of(), NOW);

        Reply reply = Responder.builder().body(Responder.BodyFormat.PROBLEM).build().reply(d, REQUEST, NOW);

        assertThat(reply.status()).isEqualTo(429);
        assertThat(reply.contentType()).isEqualTo("application/problem+json");
        assertThat(reply.body()).isEqualTo("{\"type\":\"https://iana.org/assignments/http-problem-types#quota-exceeded\","
                + "\"title\":\"Quota Exceeded\",\"status\":429,\"detail\":\"Request quota exceeded. Wait 5 seconds and try "
                + "again.\",\"violated-policies\":[\"per-ip\",\"per-key\"]}");
        assertThat(reply.header("Retry-After")).as("the longest wait binds").isEqualTo("5");
    }

    @Test
    void noBodyMeansNoContentType() {
        Reply reply = Responder.builder().body(Responder.BodyFormat.NONE).build()
                .reply(decision(PER_IP, Outcome.deny(100, 0, 1, 1)), REQUEST, NOW);

        assertThat(reply.status()).isEqualTo(429);
        assertThat(reply.body()).isNull();
        assertThat(reply.contentType()).isNull();
        assertThat(reply.header("Retry-After")).isEqualTo("1");
    }

    @Test
    void headerStylesChooseTheFields() {
        Decision d = decision(PER_IP, Outcome.allow(100, 99, 600_000));

        assertThat(Responder.builder().headers(Responder.HeaderStyle.IETF).build().reply(d, REQUEST, NOW).headers())
                .extracting(Reply.Header::name).containsExactly("RateLimit-Policy", "RateLimit");
        assertThat(Responder.builder().headers(Responder.HeaderStyle.LEGACY).build().reply(d, REQUEST, NOW).headers())
                .extracting(Reply.Header::name).containsExactly("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset");
        assertThat(Responder.builder().headers(Responder.HeaderStyle.NONE).build().reply(d, REQUEST, NOW).headers()).isEmpty();
    }

    @Test
    void theResetCanBeSecondsUntilRatherThanAnEpochSecond() {
        Reply reply = Responder.builder().reset(Responder.ResetFormat.DELTA_SECONDS).build()
                .reply(decision(PER_IP, Outcome.allow(100, 99, 600_000)), REQUEST, NOW);

        assertThat(reply.header("X-RateLimit-Reset")).isEqualTo("1");
    }

    @Test
    void concurrencyPoliciesUseTheConcurrentRequestsQuotaUnitAndNoWindow() {
        Rule inFlight = Rule.builder("in-flight").policy("20 concurrent").build();

        Reply reply = DEFAULTS.reply(decision(inFlight, Outcome.allow(20, 19, 0)), REQUEST, NOW);

        assertThat(reply.header("RateLimit-Policy")).isEqualTo("\"in-flight\";q=20;qu=\"concurrent-requests\"");
        assertThat(reply.header("RateLimit")).as("no reset to announce: room comes back as requests complete")
                .isEqualTo("\"in-flight\";r=19");
        assertThat(reply.header("X-RateLimit-Remaining")).isEqualTo("19");
        assertThat(reply.header("X-RateLimit-Reset")).isNull();
    }

    @ParameterizedTest
    @CsvSource({"100/1m, ;q=100;w=60", "5/500ms, ;q=10;w=1", "3/1500ms, ;q=4;w=2", "10/1d, ;q=10;w=86400",
            "1000000000/1ms, ;q=1000000000000;w=1"})
    void periodsThatAreNotWholeSecondsAreAdvertisedOverTheNextWholeSecond(String notation, String quota) {
        assertThat(RateLimitFields.quota(Policy.parse(notation), Policy.parse(notation).limit())).isEqualTo(quota);
    }

    @ParameterizedTest
    @CsvSource({"gcra, 5/10s burst 20, ;q=20;w=40", "token-bucket, 5/10s burst 20, ;q=20;w=40",
            "leaky-bucket, 5/10s burst 20, ;q=20;w=40", "gcra, 100/1m burst 10, ;q=10;w=6",
            "token-bucket, 2/1s burst 5, ;q=5;w=3", "gcra, 100/1m, ;q=100;w=60"})
    void aBucketWithABurstIsAdvertisedAsItsCapacityOverTheTimeToFillIt(String algorithm, String notation, String quota) {
        Policy policy = Policy.parse(notation).withAlgorithm(io.sluice.core.policy.Algorithm.fromId("algorithm", algorithm));
        assertThat(RateLimitFields.quota(policy, policy.capacity())).as("the sustained rate, not the burst per period")
                .isEqualTo(quota);
        assertThat(RateLimitFields.quota(policy, policy.capacity() / 4)).as("another limit (a node's share): the period")
                .endsWith(";w=" + policy.periodMicros() / 1_000_000);
    }

    @Test
    void aRequestThatCanNeverPassGetsCappedNumbersAndSaysSo() {
        Decision d = decision(PER_IP, Outcome.deny(100, 100, 0, Outcome.NEVER));

        Reply reply = DEFAULTS.reply(d, REQUEST, NOW);

        assertThat(reply.status()).isEqualTo(429);
        assertThat(reply.header("Retry-After")).isEqualTo("31622400");
        assertThat(reply.header("RateLimit")).isEqualTo("\"per-ip\";r=100;t=31622400");
        assertThat(reply.header("X-RateLimit-Reset")).isEqualTo(Long.toString(1_699_920_001L + 31_622_400L));
        assertThat(reply.body()).contains("\"message\":\"Request quota exceeded. This request costs more than the quota "
                + "allows, so retrying cannot help.\"", "\"renewal\":" + (1_699_920_000_250L + 31_622_400_000L));
    }

    /**
     * A bucket may take longer than 366 days to fit a request (capacity x interval reaches 2^52 µs): a cost of 20 on
     * "10/366d burst 20" just after another waits 732 days. Every wait was capped at 366 days as if it were "never", so
     * Retry-After, t, X-RateLimit-Reset, renewal and the message sent the client back a year too early.
     */
    @Test
    void aWaitLongerThan366DaysIsStatedAsItIs() {
        io.sluice.core.testing.ManualTimeSource time = new io.sluice.core.testing.ManualTimeSource();
        Rule yearly = Rule.builder("yearly").policy("10/366d burst 20").cost(20).build();
        io.sluice.core.Engine engine = io.sluice.core.Engine.builder().timeSource(time).rule(yearly).build();
        assertThat(engine.check(REQUEST).allowed()).isTrue();
        Decision d = engine.check(REQUEST);
        long wait = 732L * 86_400;
        assertThat(d.retryAfterMicros()).isEqualTo(wait * 1_000_000);

        Reply reply = DEFAULTS.reply(d, REQUEST, d.atMicros());

        assertThat(reply.header("Retry-After")).isEqualTo(Long.toString(wait));
        // draft -11: the first unit is back after one interval (36.6 days), though this request needs all 20
        assertThat(reply.header("RateLimit")).isEqualTo("\"yearly\";r=0;t=" + 3_162_240);
        assertThat(Responder.builder().headerDraft(Responder.HeaderDraft.DRAFT_10).build()
                .reply(d, REQUEST, d.atMicros()).header("RateLimit")).isEqualTo("\"yearly\";r=0;t=" + wait);
        assertThat(reply.header("X-RateLimit-Reset")).isEqualTo(Long.toString(d.atMicros() / 1_000_000 + wait));
        assertThat(reply.body()).contains("Wait 732 days and try again.",
                "\"renewal\":" + (d.atMicros() / 1_000 + wait * 1_000));
        // "never" keeps its 366 days
        assertThat(DEFAULTS.reply(decision(yearly, Outcome.deny(20, 0, 0, Outcome.NEVER)), REQUEST, NOW)
                .header("Retry-After")).isEqualTo("31622400");
    }

    @Test
    void aStoreFailureThatDeniesAnswers503WithRetryAfterAndNoInventedQuota() {
        Rule strict = Rule.builder("strict").policy("100/1m").onStoreFailure(Rule.FailureMode.DENY).build();
        Decision d = decision(strict, strict.policy(), Outcome.deny(100, 0, 0, 1_000_000), RuleOutcome.Source.FAILURE_DENIED);

        Reply envelope = DEFAULTS.reply(d, REQUEST, NOW);
        Reply problem = Responder.builder().body(Responder.BodyFormat.PROBLEM).build().reply(d, REQUEST, NOW);

        assertThat(envelope.status()).isEqualTo(503);
        assertThat(envelope.headers()).extracting(Reply.Header::name).containsExactly("Retry-After", "Cache-Control");
        assertThat(envelope.header("Retry-After")).isEqualTo("1");
        assertThat(envelope.body()).isEqualTo("{\"error\":{\"code\":\"rate_limit_unavailable\",\"message\":\"The rate "
                + "limiter is temporarily unavailable. Wait 1 second and try again.\",\"context\":{\"renewal\":"
                + "1699920001250,\"policy\":\"strict\"}}}");
        assertThat(problem.status()).isEqualTo(503);
        assertThat(problem.body()).isEqualTo("{\"type\":\"https://iana.org/assignments/http-problem-types#temporary-"
                + "reduced-capacity\",\"title\":\"Temporary Reduced Capacity\",\"status\":503,\"detail\":\"The rate limiter "
                + "is temporarily unavailable. Wait 1 second and try again.\",\"violated-policies\":[\"strict\"]}");
    }

    @Test
    void shuttingDownAnswers503WithRetryAfterNoStoreTheDenyHeadersAndTheConfiguredBody() {
        Reply envelope = Responder.builder().denyHeader("Access-Control-Allow-Origin", "*").build().shuttingDown(NOW);
        Reply problem = Responder.builder().body(Responder.BodyFormat.PROBLEM).build().shuttingDown(NOW);
        Reply none = Responder.builder().body(Responder.BodyFormat.NONE).build().shuttingDown(NOW);

        assertThat(envelope.proceed()).isFalse();
        assertThat(envelope.status()).isEqualTo(503);
        assertThat(envelope.headers()).containsExactly(new Reply.Header("Retry-After", "1"),
                new Reply.Header("Cache-Control", "no-store"), new Reply.Header("Access-Control-Allow-Origin", "*", true));
        assertThat(envelope.contentType()).isEqualTo("application/json");
        assertThat(envelope.body()).isEqualTo("{\"error\":{\"code\":\"shutting_down\",\"message\":\"The service is "
                + "shutting down. Wait 1 second and try again.\",\"context\":{\"renewal\":1699920001250}}}");
        assertThat(problem.status()).isEqualTo(503);
        assertThat(problem.contentType()).isEqualTo("application/problem+json");
        assertThat(problem.body()).isEqualTo("{\"type\":\"about:blank\",\"title\":\"Service Unavailable\",\"status\":"
                + "503,\"detail\":\"The service is shutting down. Wait 1 second and try again.\"}");
        assertThat(none).isEqualTo(new Reply(false, 503, List.of(new Reply.Header("Retry-After", "1"),
                new Reply.Header("Cache-Control", "no-store")), null, null));
    }

    @Test
    void noRateLimitHeadersForShadowRulesOrWhileTheStoreFailsOpen() {
        Rule shadow = Rule.builder("trial").policy("1/1m").shadow().build();
        Decision shadowDenied = decision(shadow, Outcome.deny(1, 0, 60_000_000, 60_000_000));
        Decision failedOpen = decision(PER_IP, PER_IP.policy(), Outcome.allow(100, 100, 0), RuleOutcome.Source.FAILURE_ALLOWED);

        assertThat(DEFAULTS.reply(shadowDenied, REQUEST, NOW)).isEqualTo(new Reply(true, 0, List.of(), null, null));
        assertThat(DEFAULTS.reply(failedOpen, REQUEST, NOW).headers()).isEmpty();
        assertThat(DEFAULTS.reply(Decision.NO_RULES, REQUEST, NOW).headers()).isEmpty();
    }

    @Test
    void theLocalFallbackReportsItsOwnNumbers() {
        Policy share = Policy.parse("50/1m");
        Decision d = decision(PER_IP, share, Outcome.allow(50, 49, 1_200_000), RuleOutcome.Source.LOCAL_FALLBACK);

        assertThat(DEFAULTS.reply(d, REQUEST, NOW).header("RateLimit-Policy")).isEqualTo("\"per-ip\";q=50;w=60");
    }

    @Test
    void theLocalFallbackReportsItsNumbersBesideARuleThatFailsOpen() {
        // a rule that fails open states no numbers: its "remaining" (the limit) is made up, so it must not take the
        // headers from the local rule's share, whatever the two limits
        Rule burst = Rule.builder("burst").policy("10/1s").build();
        Rule global = Rule.builder("global").policy("1000/1m").onStoreFailure(Rule.FailureMode.LOCAL).build();
        Decision d = Decision.of(List.of(
                new RuleOutcome(burst, burst.policy(), Outcome.allow(10, 10, 0), RuleOutcome.Source.FAILURE_ALLOWED),
                new RuleOutcome(global, Policy.parse("250/1m"), Outcome.allow(250, 200, 12_000_000),
                        RuleOutcome.Source.LOCAL_FALLBACK)), List.of(), NOW);

        // the share is GCRA 250/1m (one unit every 240 ms): 200 left and full after 12 s, so the next unit is back
        // after 240 ms (draft -11's effective window); draft -10 stated the 12 s
        assertThat(DEFAULTS.reply(d, REQUEST, NOW).header("RateLimit")).isEqualTo("\"global\";r=200;t=1");
        assertThat(Responder.builder().headerDraft(Responder.HeaderDraft.DRAFT_10).build().reply(d, REQUEST, NOW)
                .header("RateLimit")).isEqualTo("\"global\";r=200;t=12");
        assertThat(sunk(DEFAULTS, d, NOW)).isEqualTo(DEFAULTS.reply(d, REQUEST, NOW).headers());
    }

    @Test
    void extraHeadersAreAddedToDenialsOnly() {
        Responder cors = Responder.builder().denyHeader("Access-Control-Allow-Origin", "*")
                .denyHeader("Access-Control-Expose-Headers", "Retry-After, RateLimit").build();

        Reply denied = cors.reply(decision(PER_IP, Outcome.deny(100, 0, 1, 1)), REQUEST, NOW);
        Reply allowed = cors.reply(decision(PER_IP, Outcome.allow(100, 1, 1)), REQUEST, NOW);

        assertThat(denied.header("Access-Control-Allow-Origin")).isEqualTo("*");
        assertThat(denied.header("Access-Control-Expose-Headers")).isEqualTo("Retry-After, RateLimit");
        assertThat(allowed.header("Access-Control-Allow-Origin")).isNull();
    }

    @Test
    void extraHeadersCannotReplaceSluicesOwnOrSmuggleLines() {
        assertThatThrownBy(() -> Responder.builder().denyHeader("Retry-After", "0")).isInstanceOf(ConfigException.class)
                .hasMessage("deny-headers: Sluice sets this header itself; expected another header, got \"Retry-After\"");
        assertThatThrownBy(() -> Responder.builder().denyHeader("X-A", "1\r\nSet-Cookie: x=1"))
                .hasMessageStartingWith("deny-headers: expected a value without line breaks");
        assertThatThrownBy(() -> Responder.builder().denyHeader("Bad Name", "1"))
                .hasMessageStartingWith("deny-headers: expected a header name");
    }

    @Test
    void thePartitionKeyIsAHashNeverTheKey() {
        Rule perKey = Rule.builder("per-key").policy("100/1m").key(KeyResolvers.header("X-Api-Key")).build();
        Responder withPk = Responder.builder().partitionKey(true).build();

        Reply reply = withPk.reply(decision(perKey, Outcome.allow(100, 5, 1_000_000)), REQUEST, NOW);
        Reply other = withPk.reply(decision(perKey, Outcome.allow(100, 5, 1_000_000)),
                RequestView.builder("GET", "/").header("X-Api-Key", "another").build(), NOW);

        String pk = reply.header("RateLimit").replaceAll(".*;pk=", "");
        assertThat(pk).matches(":[A-Za-z0-9+/]{22}==:").isNotEqualTo(other.header("RateLimit").replaceAll(".*;pk=", ""));
        assertThat(reply.header("RateLimit-Policy")).endsWith(";pk=" + pk);
        assertThat(reply.headers()).noneMatch(h -> h.value().contains("secret"));
    }

    @Test
    void theBodyNeverEchoesTheKeyOrRequestData() {
        Rule perKey = Rule.builder("per-key").policy("100/1m").key(KeyResolvers.header("X-Api-Key")).build();
        Decision d = decision(perKey, Outcome.deny(100, 0, 1_000_000, 1_000_000));

        assertThat(DEFAULTS.reply(d, REQUEST, NOW).body()).doesNotContain("secret", "203.0.113.9");
        assertThat(Responder.builder().body(Responder.BodyFormat.PROBLEM).build().reply(d, REQUEST, NOW).body())
                .doesNotContain("secret", "203.0.113.9");
    }

    @ParameterizedTest
    @CsvSource({"1, 1 second", "59, 59 seconds", "60, 1 minute", "61, 2 minutes", "3600, 1 hour", "3601, 2 hours",
            "3540, 59 minutes", "3541, 1 hour", "3599, 1 hour", "82800, 23 hours", "82801, 1 day", "86399, 1 day",
            "86400, 1 day", "86401, 2 days", "31622400, 366 days"})
    void waitsAreSaidInWordsRoundedUp(long seconds, String words) {
        assertThat(Denials.words(seconds)).isEqualTo(words);
    }

    // --- the servlet filter's path of admitted requests, and the text formatted once per rule ---

    private static List<Reply.Header> sunk(Responder responder, Decision d, long now) {
        List<Reply.Header> out = new java.util.ArrayList<>();
        responder.allowedHeaders(d, REQUEST, now, (name, value) -> out.add(new Reply.Header(name, value)));
        return out;
    }

    @Test
    void theHeadersOfAnAdmittedRequestAreExactlyThoseOfTheReply() {
        Rule inFlight = Rule.builder("in-flight").policy("20 concurrent").build();
        Rule shadow = Rule.builder("trial").policy("1/1m").shadow().build();
        Rule fast = Rule.builder("fast").policy("5/500ms").key(KeyResolvers.header("X-Api-Key")).build();
        List<Decision> decisions = List.of(
                decision(PER_IP, Outcome.allow(100, 42, 16_200_000)),
                decision(PER_IP, Outcome.allow(100, 0, 0)),
                decision(PER_IP, Outcome.allow(100, 99_999, 999_999_999_999L)),
                decision(fast, Outcome.allow(5, 4, 100_000)),
                decision(inFlight, Outcome.allow(20, 19, 0)),
                decision(shadow, Outcome.deny(1, 0, 60_000_000, 60_000_000)),
                decision(PER_IP, PER_IP.policy(), Outcome.allow(100, 100, 0), RuleOutcome.Source.FAILURE_ALLOWED),
                decision(PER_IP, Policy.parse("50/1m"), Outcome.allow(50, 49, 1_200_000), RuleOutcome.Source.LOCAL_FALLBACK),
                Decision.NO_RULES);
        for (Responder.HeaderStyle style : Responder.HeaderStyle.values()) {
            for (Responder.ResetFormat reset : Responder.ResetFormat.values()) {
                for (boolean pk : new boolean[] {false, true}) {
                    Responder r = Responder.builder().headers(style).reset(reset).partitionKey(pk).build();
                    for (Decision d : decisions) {
                        for (long now : new long[] {NOW, NOW + 1_000_000, NOW, 0}) {
                            assertThat(sunk(r, d, now)).as("%s %s pk=%s %s", style, reset, pk, d)
                                    .isEqualTo(r.reply(d, REQUEST, now).headers());
                        }
                    }
                }
            }
        }
    }

    @Test
    void aDeniedDecisionNeedsAFullReply() {
        Decision denied = decision(PER_IP, Outcome.deny(100, 0, 1_000_000, 1_000_000));

        assertThatThrownBy(() -> sunk(DEFAULTS, denied, NOW)).isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest
    @CsvSource({"100/1m", "5/500ms", "3/1500ms", "10/1d", "1000000000/1ms", "1000000000/1s", "20 concurrent",
            "10/1s burst 50", "1/366d"})
    void theTextFormattedOncePerRuleIsTheFormattedText(String notation) {
        Rule rule = Rule.builder("r-1.x_y").policy(notation).build();
        RateLimitFields.Formatted f = Responder.builder().build().formatted(rule, rule.policy(), rule.policy().limit());

        assertThat(f.policyField).isEqualTo(RateLimitFields.quote(rule.name()) + RateLimitFields.quota(rule.policy(), rule.policy().limit()));
        assertThat(f.rateLimitPrefix).isEqualTo("\"r-1.x_y\";r=");
        assertThat(f.limitText).isEqualTo(Long.toString(rule.policy().limit()));
    }

    @Test
    void theFormattedTextFollowsTheRulePolicyAndLimitItIsFor() {
        Responder r = Responder.builder().build();
        RateLimitFields.Formatted first = r.formatted(PER_IP, PER_IP.policy(), 100);

        assertThat(r.formatted(PER_IP, PER_IP.policy(), 100)).isSameAs(first);
        assertThat(r.formatted(PER_IP, PER_IP.policy(), 50).policyField).isEqualTo("\"per-ip\";q=50;w=60");
        Rule reloaded = Rule.builder("per-ip").policy("7/1s").build();                 // same name, new rule
        assertThat(r.formatted(reloaded, reloaded.policy(), 7).policyField).isEqualTo("\"per-ip\";q=7;w=1");
        Policy share = Policy.parse("3/1s");
        assertThat(r.formatted(reloaded, share, 3).policyField).isEqualTo("\"per-ip\";q=3;w=1");
        assertThat(r.formatted(PER_IP, PER_IP.policy(), 100).policyField).isEqualTo("\"per-ip\";q=100;w=60");
        RateLimitFields.Formatted fallback = r.formatted(PER_IP, Policy.parse("50/1m"), 50);
        assertThat(r.formatted(PER_IP, Policy.parse("50/1m"), 50)).isSameAs(fallback);        // an equal policy
        assertThat(r.formatted(PER_IP, Policy.parse("50/2m"), 50).policyField).isEqualTo("\"per-ip\";q=50;w=120");
    }

    @Test
    void manyRulesSharingTheCacheEachGetTheirOwnHeaders() {
        List<Rule> rules = new java.util.ArrayList<>();
        for (int i = 0; i < 100; i++) {
            rules.add(Rule.builder("rule-" + i).policy((i + 1) + "/1m").build());
        }
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < rules.size(); i++) {
                Rule rule = rules.get(i);
                Reply reply = DEFAULTS.reply(decision(rule, Outcome.allow(i + 1, i, 60_000_000)), REQUEST, NOW);
                assertThat(reply.header("RateLimit-Policy")).isEqualTo("\"rule-" + i + "\";q=" + (i + 1) + ";w=60");
                assertThat(reply.header("RateLimit")).isEqualTo("\"rule-" + i + "\";r=" + i + ";t=60");
                assertThat(reply.header("X-RateLimit-Limit")).isEqualTo(Integer.toString(i + 1));
            }
        }
    }

    @Test
    void theResetEpochSecondIsRightAcrossSecondsWhateverTheOrder() {
        Decision d = decision(PER_IP, Outcome.allow(100, 42, 16_200_000));
        long[] nows = {NOW, NOW, NOW + 999_750, NOW + 1_000_000, NOW - 5_000_000, NOW, 0, 1, -2_000_000_000L};
        for (long now : nows) {
            long expected = -Math.floorDiv(-(now + 16_200_000), 1_000_000);
            assertThat(DEFAULTS.reply(d, REQUEST, now).header("X-RateLimit-Reset")).as("now %d", now)
                    .isEqualTo(Long.toString(expected));
        }
    }

    @ParameterizedTest
    @CsvSource({"0", "1", "9", "10", "1023", "1024", "1025", "-1", "-1024", "999999999999999", "9223372036854775807",
            "-9223372036854775808"})
    void numbersAreTheirDecimalText(long n) {
        assertThat(Numbers.text(n)).isEqualTo(Long.toString(n));
    }

    @Test
    void smallNumbersShareTheirText() {
        assertThat(Numbers.text(42)).isSameAs(Numbers.text(42));
        assertThat(Numbers.text(Numbers.SMALL - 1)).isSameAs(Numbers.text(Numbers.SMALL - 1));
    }
}
