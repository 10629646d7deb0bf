package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.Engine;
import io.sluice.core.request.RequestView;
import io.sluice.core.Rule;
import io.sluice.core.testing.LogCapture;
import io.sluice.core.testing.ManualTimeSource;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ShadowReportTest {

    private static final RequestView CLIENT = RequestView.builder("GET", "/").remoteAddress("203.0.113.9").build();

    /** @return an engine with one shadow rule of one request per hour per client, reported by a ShadowReport */
    private static Engine shadowEngine(ManualTimeSource time) {
        return Engine.builder().timeSource(time)
                .rule(Rule.builder("trial").policy("1/1h").key(RequestView::remoteAddress).shadow().build())
                .listener(new ShadowReport(time)).build();
    }

    @Test
    void aClockReadAMomentEarlierDoesNotReportAgainWithinTheMinute() {
        ManualTimeSource time = new ManualTimeSource();
        Engine engine = shadowEngine(time);
        try (LogCapture log = new LogCapture(ShadowReport.class.getName())) {
            engine.check(CLIENT);
            time.advance(Duration.ofSeconds(10));
            engine.check(CLIENT);           // the first denial: reported at once
            // the default clock steps back by some microseconds when it re-anchors, and a thread that read the clock
            // just before another may report after it: neither is a minute
            time.advanceMicros(-5);
            engine.check(CLIENT);
            time.advance(Duration.ofSeconds(5));
            engine.check(CLIENT);

            assertThat(log.messages()).hasSize(1);

            time.advance(Duration.ofMinutes(1));
            engine.check(CLIENT);
            assertThat(log.messages()).hasSize(2).last().asString()
                    .contains("would have denied {trial=3} request(s) in the last 64 s");
        }
    }

    @Test
    void aClockSetBackByMoreThanTheIntervalDoesNotSilenceTheReport() {
        ManualTimeSource time = new ManualTimeSource();
        Engine engine = shadowEngine(time);
        try (LogCapture log = new LogCapture(ShadowReport.class.getName())) {
            engine.check(CLIENT);
            engine.check(CLIENT);
            time.advance(Duration.ofHours(-2));
            engine.check(CLIENT);

            assertThat(log.messages()).hasSize(2).last().asString()
                    .contains("would have denied {trial=1} request(s) since the last report (the clock was set back)");
        }
    }

    /**
     * A shadow queue ({@code max-wait}) delays nobody: the report says how many requests it would have delayed, and the
     * longest of those waits, beside those it would have denied (a wait above its max-wait).
     */
    @Test
    void aShadowQueueReportsTheRequestsItWouldHaveDelayedAndTheLongestWait() {
        ManualTimeSource time = new ManualTimeSource();
        Engine engine = Engine.builder().timeSource(time)
                .rule(Rule.builder("queue").policy("1/1s burst 10 max-wait 2s").key(RequestView::remoteAddress)
                        .shadow().build())
                .listener(new ShadowReport(time)).build();
        try (LogCapture log = new LogCapture(ShadowReport.class.getName())) {
            assertThat(engine.check(CLIENT).delayMicros()).isZero();     // its turn now: nothing to report
            assertThat(log.messages()).isEmpty();
            assertThat(engine.check(CLIENT).delayMicros()).as("would wait 1 s; held by nobody").isZero();
            assertThat(log.messages()).singleElement().asString().endsWith(
                    "shadow mode: would have delayed {queue=1 (up to 1s)} (first delay; next report in at most a minute)");
            engine.check(CLIENT);                                        // would wait 2 s
            assertThat(engine.check(CLIENT).shadowDenied()).as("3 s: above its max-wait").isTrue();

            time.advance(Duration.ofMinutes(1));
            engine.check(CLIENT);                                        // the bucket is empty again: its turn now
            engine.check(CLIENT);                                        // would wait 1 s: due, reported

            assertThat(log.messages()).hasSize(2).last().asString().endsWith("shadow mode: would have denied {queue=1}"
                    + " and delayed {queue=2 (up to 2s)} request(s) in the last 60 s");
        }
    }
}
