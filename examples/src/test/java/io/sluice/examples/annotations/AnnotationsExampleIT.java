package io.sluice.examples.annotations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;

import io.restassured.response.Response;
import io.sluice.examples.ExampleServer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code src/main/webapps/annotations}: {@code @RateLimit} on {@link BookResource}, served by real Jersey in embedded
 * Jetty. Every test uses API keys of its own; the limits are per minute, far longer than a test takes.
 */
class AnnotationsExampleIT {

    @RegisterExtension
    static final ExampleServer app = ExampleServer.of("annotations");

    private static Response get(String apiKey, String path) {
        return app.client().header("X-Api-Key", apiKey).get(path);
    }

    @Test
    void theClassRuleGivesEveryApiKeyFiveRequestsAMinute() {
        long start = System.currentTimeMillis();
        List<Integer> statuses = new ArrayList<>();
        List<String> remaining = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            Response r = get("key-list", "/api/books");
            statuses.add(r.statusCode());
            remaining.add(r.header("X-RateLimit-Remaining"));
        }

        assertThat(statuses).containsExactly(200, 200, 200, 200, 200, 429);
        assertThat(remaining).containsExactly("4", "3", "2", "1", "0", "0");
        Response denied = get("key-list", "/api/books");
        denied.then().statusCode(429)
                .contentType("application/json")
                .header("RateLimit-Policy", "\"BookResource\";q=5;w=60")
                .body("error.code", equalTo("rate_limited"))
                .body("error.context.policy", equalTo("BookResource"));
        // GCRA: one more every 60 s / 5, counted from the first request
        assertThat(Integer.parseInt(denied.header("Retry-After")))
                .isBetween(12 - ExampleServer.secondsSince(start), 12);
        get("another-key", "/api/books").then().statusCode(200).body(equalTo("Dune\nSolaris\nNeuromancer\n"));
    }

    @Test
    void searchHasARuleOfItsOwnAndCountsAgainstTheClassRuleToo() {
        get("key-search", "/api/books/search?q=du").then().statusCode(200).body(equalTo("Dune\n"))
                .header("RateLimit-Policy", "\"BookResource.search\";q=2;w=60")   // the rule with least left
                .header("X-RateLimit-Remaining", "1");
        get("key-search", "/api/books/search?q=so").then().statusCode(200).header("X-RateLimit-Remaining", "0");
        get("key-search", "/api/books/search?q=ne").then().statusCode(429)
                .body("error.context.policy", equalTo("BookResource.search"));

        // two of the key's five are gone (the denied search consumed nothing)
        get("key-search", "/api/books").then().statusCode(200)
                .header("RateLimit-Policy", "\"BookResource\";q=5;w=60")
                .header("X-RateLimit-Remaining", "2");
    }

    @Test
    void anExportCostsTheWholeMinuteOfTheClassRule() {
        get("key-export", "/api/books/export").then().statusCode(200)
                .header("RateLimit-Policy", "\"BookResource\";q=5;w=60")
                .header("X-RateLimit-Remaining", "0");

        get("key-export", "/api/books").then().statusCode(429)
                .body("error.context.policy", equalTo("BookResource"));
        get("key-export", "/api/books/export").then().statusCode(429);
    }

    @Test
    void requestsWithoutAnApiKeyAreNotLimited() {
        for (int i = 0; i < 7; i++) {
            app.client().get("/api/books").then().statusCode(200).header("RateLimit", nullValue());
        }
    }
}
