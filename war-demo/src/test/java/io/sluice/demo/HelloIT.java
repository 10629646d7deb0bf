package io.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.both;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.lessThanOrEqualTo;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.nullValue;
import static org.hamcrest.Matchers.startsWith;

import io.restassured.response.Response;
import java.time.Duration;
import java.util.Collections;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The demo's stable contract: {@code GET /api/hello}, 5 requests per 10 s per client IP, fixed window. */
class HelloIT {

    private static final Duration WINDOW = Duration.ofSeconds(10);
    @RegisterExtension
    static final RunningDemo demo = RunningDemo.at("/");

    private static Burst helloBurst(int count) {
        return demo.burst("/api/hello", count, b -> b.withinOneWindow(WINDOW));
    }

    @Test
    void fivePassInTenSecondsAndTheSixthIsDenied() {
        Burst burst = helloBurst(7);

        assertThat(burst.statuses()).containsExactly(200, 200, 200, 200, 200, 429, 429);
    }

    @Test
    void anAllowedResponseIsPlainTextWithIetfAndLegacyHeaders() {
        Burst burst = helloBurst(1);
        Response first = burst.last();

        first.then().statusCode(200)
                .contentType(startsWith("text/plain"))
                .body(equalTo("Hello from Sluice!\n"))
                .header("RateLimit-Policy", "\"hello\";q=5;w=10")
                .header("RateLimit", matchesPattern("\"hello\";r=4;t=([1-9]|10)"))
                .header("X-RateLimit-Limit", "5")
                .header("X-RateLimit-Remaining", "4")
                .header("X-RateLimit-Reset", Long::parseLong,       // the end of the window the request fell in
                        both(greaterThan(burst.startMillis() / 1000))
                                .and(lessThanOrEqualTo(burst.endMillis() / 1000 + 11)))
                .header("Retry-After", nullValue());
    }

    @Test
    void remainingCountsDownToZero() {
        Burst burst = helloBurst(5);

        assertThat(burst.responses()).extracting(r -> r.header("X-RateLimit-Remaining"))
                .containsExactly("4", "3", "2", "1", "0");
    }

    @Test
    void aDeniedRequestGetsTheJsonEnvelopeAndRetryAfter() {
        Burst burst = helloBurst(6);
        Response denied = burst.last();

        denied.then().statusCode(429)
                .contentType("application/json")
                .header("Cache-Control", "no-store")
                .header("Retry-After", Integer::parseInt, both(greaterThan(0)).and(lessThanOrEqualTo(10)))
                .header("RateLimit-Policy", "\"hello\";q=5;w=10")
                .header("RateLimit", matchesPattern("\"hello\";r=0;t=([1-9]|10)"))
                .header("X-RateLimit-Remaining", "0")
                .body("error.code", equalTo("rate_limited"))
                .body("error.message", matchesPattern("Request quota exceeded\\. Wait \\d+ seconds? and try again\\."))
                .body("error.context.policy", equalTo("hello"))
                .body("error.context.limit", equalTo(5))
                .body("error.context.remaining", equalTo(0));
        long renewalMillis = denied.jsonPath().getLong("error.context.renewal");
        // the end of the window the burst fell in (the accepted burst's: a split one was repeated a window later)
        assertThat(renewalMillis).isBetween(burst.startMillis(), burst.endMillis() + WINDOW.toMillis() + 1);
    }

    @Test
    void eachClientIpHasItsOwnFive() {
        Burst exhausted = helloBurst(6);
        assertThat(exhausted.last().statusCode()).isEqualTo(429);

        demo.from(RunningDemo.freshClient()).get("/api/hello").then().statusCode(200)
                .header("X-RateLimit-Remaining", "4");
    }

    @Test
    void thePlaygroundPageIsNeverLimited() {
        Burst pages = Burst.fire(12, i -> demo.direct().get("/"));

        assertThat(pages.statuses()).isEqualTo(Collections.nCopies(12, 200));
        pages.last().then().contentType(startsWith("text/html")).header("RateLimit", nullValue())
                .body(containsString("Sluice playground"));
    }
}
