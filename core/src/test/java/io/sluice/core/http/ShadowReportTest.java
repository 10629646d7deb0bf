package io.sluice.core.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.Engine;
import io.sluice.core.RequestView;
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
}
