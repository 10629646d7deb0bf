package io.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.both;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.lessThanOrEqualTo;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.nullValue;
import static org.hamcrest.Matchers.startsWith;

import io.restassured.response.Response;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The demo's JAX-RS resource, {@code GET /api/jaxrs/greeting}: limited by its own
 * {@code @RateLimit(value = "3/10s", name = "jaxrs-greeting")} through {@code RateLimitFeature}, served by Jersey from
 * the {@code ee} WAR (see {@link DemoServer}). GCRA: a rested client gets 3 at once, then one every 3⅓ s; a burst
 * that took 3 s or more could have earned one back, so it is repeated from another client (see {@link Burst}).
 */
class JaxrsGreetingIT {

    private static final Duration REFILL = Duration.ofMillis(3333);
    @RegisterExtension
    static final RunningDemo demo = RunningDemo.at("/");

    private static Burst greetings(int count) {
        return demo.burst("/api/jaxrs/greeting", count, b -> b.shorterThan(REFILL));
    }

    @Test
    void threePassAndTheFourthIsDenied() {
        Burst burst = greetings(5);

        assertThat(burst.statuses()).containsExactly(200, 200, 200, 429, 429);
        // counted once: the servlet filter in front has no rule for this path and leaves it to the annotation
        assertThat(burst.responses()).extracting(r -> r.header("X-RateLimit-Remaining"))
                .containsExactly("2", "1", "0", "0", "0");
    }

    @Test
    void anAllowedGreetingIsPlainTextWithTheAnnotationsRateLimitHeaders() {
        Burst burst = greetings(1);
        Response first = burst.last();

        first.then().statusCode(200)
                .contentType(startsWith("text/plain"))
                .body(equalTo("Hello from JAX-RS!\n"))
                .header("RateLimit-Policy", "\"jaxrs-greeting\";q=3;w=10")
                .header("RateLimit", matchesPattern("\"jaxrs-greeting\";r=2;t=[1-4]"))
                .header("X-RateLimit-Limit", "3")
                .header("X-RateLimit-Remaining", "2")
                .header("X-RateLimit-Reset", Long::parseLong,
                        both(greaterThan(burst.startMillis() / 1000))
                                .and(lessThanOrEqualTo(burst.endMillis() / 1000 + 5)))
                .header("Retry-After", nullValue());
    }

    @Test
    void aDeniedGreetingGetsTheJsonEnvelopeOfTheServletFilter() {
        Burst burst = greetings(4);
        Response denied = burst.last();

        denied.then().statusCode(429)
                .contentType("application/json")
                .header("Cache-Control", "no-store")
                .header("Retry-After", Integer::parseInt, both(greaterThan(0)).and(lessThanOrEqualTo(4)))
                .header("RateLimit-Policy", "\"jaxrs-greeting\";q=3;w=10")
                .header("RateLimit", matchesPattern("\"jaxrs-greeting\";r=0;t=[1-4]"))
                .header("X-RateLimit-Limit", "3")
                .header("X-RateLimit-Remaining", "0")
                .body("error.code", equalTo("rate_limited"))
                .body("error.message", matchesPattern("Request quota exceeded\\. Wait \\d seconds? and try again\\."))
                .body("error.context.policy", equalTo("jaxrs-greeting"))
                .body("error.context.limit", equalTo(3))
                .body("error.context.remaining", equalTo(0));
        long renewalMillis = denied.jsonPath().getLong("error.context.renewal");
        // the first greeting's time plus one emission interval (10 s / 3): then the next one passes
        assertThat(renewalMillis)
                .isBetween(burst.startMillis() + REFILL.toMillis(), burst.endMillis() + REFILL.toMillis() + 1);
    }
}
