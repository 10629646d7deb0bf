package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.testing.ManualTimeSource;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a remote's answer says, read from its fields: times bounded by the cap, garbage ignored. */
class RemoteAnswerTest {

    private static final long NOW = ManualTimeSource.START_MICROS;
    private static final long CAP = 600_000_000;        // 10 minutes

    private static RemoteAnswer read(int status, String... nameValues) {
        Map<String, List<String>> fields = new HashMap<>();
        for (int i = 0; i < nameValues.length; i += 2) {
            fields.computeIfAbsent(nameValues[i].toLowerCase(Locale.ROOT), k -> new ArrayList<>())
                    .add(nameValues[i + 1]);
        }
        return RemoteAnswer.read(status, name -> fields.getOrDefault(name.toLowerCase(Locale.ROOT), List.of()), NOW,
                CAP);
    }

    @Test
    void retryAfterInSecondsPausesThatLong() {
        assertThat(read(429, "Retry-After", "17").pauseMicros()).isEqualTo(17_000_000);
        assertThat(read(503, "Retry-After", " 3 ").pauseMicros()).isEqualTo(3_000_000);
    }

    @Test
    void retryAfterAsAnHttpDateIsReadAgainstTheClientsClock() {
        String in90s = DateTimeFormatter.RFC_1123_DATE_TIME.format(
                Instant.ofEpochSecond(NOW / 1_000_000 + 90).atOffset(ZoneOffset.UTC));
        assertThat(read(429, "Retry-After", in90s).pauseMicros()).isEqualTo(90_000_000);
    }

    @Test
    void aHugeRetryAfterIsCutToTheCap() {
        RemoteAnswer a = read(429, "Retry-After", "31536000");     // a year
        assertThat(a.pauseMicros()).isEqualTo(CAP);
        assertThat(a.capped()).isTrue();
        assertThat(read(429, "Retry-After", "Fri, 31 Dec 9999 23:59:59 GMT").pauseMicros()).isEqualTo(CAP);
    }

    @Test
    void aRetryAfterTooLongForMicrosecondsIsCutToTheCapNotWrappedRound() {
        // 10^13 s is past Long.MAX_VALUE µs: multiplied as it is, it wraps to a negative number
        for (String huge : new String[] {"10000000000000", "999999999999999", "9999999999999999999999"}) {
            RemoteAnswer a = read(429, "Retry-After", huge);
            assertThat(a.pauseMicros()).as(huge).isEqualTo(CAP);
            assertThat(a.capped()).as(huge).isTrue();
        }
        assertThat(read(200, "RateLimit", "\"a\";r=0;t=10000000000000").pauseMicros()).isEqualTo(CAP);
        assertThat(read(200, "RateLimit", "limit=9, remaining=0, reset=10000000000000").pauseMicros()).isEqualTo(CAP);
    }

    @Test
    void aGarbageOrNegativeRetryAfterIsIgnoredAndA429StillPausesOneSecond() {
        for (String garbage : new String[] {"-5", "soon", "1e9", "", "12 s",
                "x".repeat(100_000)}) {
            RemoteAnswer a = read(429, "Retry-After", garbage);
            assertThat(a.pauseMicros()).as(garbage.length() > 30 ? "a long value" : garbage)
                    .isEqualTo(RemoteAnswer.DEFAULT_429_PAUSE_MICROS);
            assertThat(a.capped()).isFalse();
        }
        assertThat(read(429, "Retry-After", "0").pauseMicros()).isEqualTo(RemoteAnswer.DEFAULT_429_PAUSE_MICROS);
    }

    @Test
    void aDateInThePastPausesOnlyA429sDefault() {
        assertThat(read(429, "Retry-After", "Thu, 01 Jan 1970 00:00:00 GMT").pauseMicros())
                .isEqualTo(RemoteAnswer.DEFAULT_429_PAUSE_MICROS);
        assertThat(read(503, "Retry-After", "Thu, 01 Jan 1970 00:00:00 GMT")).isEqualTo(RemoteAnswer.NOTHING);
    }

    @Test
    void a503WithoutRetryAfterIsAnOutageNotALimit() {
        assertThat(read(503, "RateLimit", "\"x\";r=0;t=30")).isEqualTo(RemoteAnswer.NOTHING);
    }

    @Test
    void rateLimitWithNothingRemainingPausesForT() {
        assertThat(read(200, "RateLimit", "\"per-ip\";r=0;t=30").pauseMicros()).isEqualTo(30_000_000);
        // two policies, two lines: the longest spent one wins; one with room left pauses nothing
        assertThat(read(200, "RateLimit", "\"burst\";r=0;t=2", "RateLimit", "\"daily\";r=0;t=40, \"x\";r=5;t=99")
                .pauseMicros()).isEqualTo(40_000_000);
        assertThat(read(200, "RateLimit", "\"per-ip\";r=3;t=30")).isEqualTo(RemoteAnswer.NOTHING);
        // an older draft's dictionary
        assertThat(read(200, "RateLimit", "limit=10, remaining=0, reset=7").pauseMicros()).isEqualTo(7_000_000);
    }

    @Test
    void anInvalidRateLimitFieldIsIgnoredWhole() {
        assertThat(read(200, "RateLimit", "\"per-ip;r=0;t=30")).isEqualTo(RemoteAnswer.NOTHING);
        assertThat(read(200, "RateLimit", "\"a\";r=0;t=30,")).isEqualTo(RemoteAnswer.NOTHING);
        assertThat(read(200, "RateLimit", "\"a\";r=0;t=-30")).isEqualTo(RemoteAnswer.NOTHING);
        String many = "\"a\";r=1;t=1, ".repeat(StructuredList.MAX_MEMBERS) + "\"b\";r=0;t=30";
        assertThat(read(200, "RateLimit", many)).isEqualTo(RemoteAnswer.NOTHING);
        String longField = "\"" + "a".repeat(StructuredList.MAX_LENGTH) + "\";r=0;t=30";
        assertThat(read(200, "RateLimit", longField)).isEqualTo(RemoteAnswer.NOTHING);
    }

    @Test
    void legacyFieldsPauseUntilTheResetInAnyOfItsForms() {
        long epochSecond = NOW / 1_000_000 + 45;
        assertThat(read(200, "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", Long.toString(epochSecond))
                .pauseMicros()).isEqualTo(45_000_000);
        assertThat(read(200, "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", Long.toString(epochSecond * 1000))
                .pauseMicros()).isEqualTo(45_000_000);
        assertThat(read(200, "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "12").pauseMicros())
                .isEqualTo(12_000_000);
        assertThat(read(200, "X-RateLimit-Remaining", "4", "X-RateLimit-Reset", "12"))
                .isEqualTo(RemoteAnswer.NOTHING);
        assertThat(read(200, "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "-12"))
                .isEqualTo(RemoteAnswer.NOTHING);
    }

    @Test
    void retryAfterIsTrustedBeforeTheOtherFields() {
        assertThat(read(429, "Retry-After", "5", "RateLimit", "\"a\";r=0;t=50").pauseMicros()).isEqualTo(5_000_000);
        assertThat(read(429, "RateLimit", "\"a\";r=0;t=50").pauseMicros()).isEqualTo(50_000_000);
    }

    @Test
    void thePolicyOfLeastRateIsTheQuota() {
        RemoteAnswer a = read(200, "RateLimit-Policy", "\"hourly\";q=1000;w=3600, \"burst\";q=10;w=1");
        assertThat(a.quota()).isEqualTo(1000);
        assertThat(a.windowSeconds()).isEqualTo(3600);
        assertThat(a.pauseMicros()).isZero();
        RemoteAnswer concurrent = read(200, "RateLimit-Policy", "\"c\";q=5;qu=\"concurrent-requests\"");
        assertThat(concurrent).isEqualTo(RemoteAnswer.NOTHING);
        assertThat(read(200, "RateLimit-Policy", "\"z\";q=0;w=60")).isEqualTo(RemoteAnswer.NOTHING);
    }
}
