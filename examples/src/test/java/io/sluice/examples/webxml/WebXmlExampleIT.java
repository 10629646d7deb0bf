package io.sluice.examples.webxml;

import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;

import io.sluice.examples.ExampleServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code src/main/webapps/web-xml}: 3 requests per minute per API key, from web.xml init parameters alone. */
class WebXmlExampleIT {

    @RegisterExtension
    static final ExampleServer app = ExampleServer.of("web-xml");

    @Test
    void eachApiKeyGetsThreeRequestsAMinuteThenAProblemDetails429() {
        for (int i = 0; i < 3; i++) {
            app.client().header("X-Api-Key", "k-three").get("/orders").then().statusCode(200)
                    .header("RateLimit-Policy", "\"per-api-key\";q=3;w=60")
                    .header("X-RateLimit-Limit", nullValue());                // headers=ietf
        }
        app.client().header("X-Api-Key", "k-three").get("/orders").then().statusCode(429)
                .contentType("application/problem+json")
                .body("status", equalTo(429))
                .body("violated-policies[0]", equalTo("per-api-key"));
        app.client().header("X-Api-Key", "another-key").get("/orders").then().statusCode(200);
    }

    @Test
    void requestsWithoutAnApiKeyAreNotLimited() {
        for (int i = 0; i < 5; i++) {
            app.client().get("/orders").then().statusCode(200).header("RateLimit", nullValue());
        }
    }

    @Test
    void theHealthCheckIsExcluded() {
        for (int i = 0; i < 5; i++) {
            app.client().header("X-Api-Key", "k-health").get("/health").then().statusCode(200)
                    .header("RateLimit", nullValue());
        }
    }
}
