package io.sluice.examples.rulesfile;

import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;

import io.sluice.examples.ExampleServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code src/main/webapps/rules-file}: a login rule, API tiers by plan and an allowlist, all in the rules file. */
class RulesFileExampleIT {

    @RegisterExtension
    static final ExampleServer app = ExampleServer.of("rules-file");

    @Test
    void aFreeKeyGetsThreeApiCallsAnHour() {
        for (int i = 0; i < 3; i++) {
            app.client().header("X-Api-Key", "free-1").get("/api/products").then().statusCode(200)
                    .header("RateLimit-Policy", "\"api\";q=3;w=3600");
        }
        app.client().header("X-Api-Key", "free-1").get("/api/products").then().statusCode(429)
                .body("error.context.policy", equalTo("api"));
    }

    @Test
    void aProKeyGetsAThousand() {
        for (int i = 0; i < 10; i++) {
            app.client().header("X-Api-Key", "pro-1").get("/api/products").then().statusCode(200)
                    .header("RateLimit-Policy", "\"api\";q=1000;w=3600");
        }
    }

    @Test
    void loginsMustBeTwoSecondsApart() {
        app.client().header("X-Forwarded-For", "198.51.100.7").post("/login").then().statusCode(200)
                .body(equalTo("POST /login"));
        app.client().header("X-Forwarded-For", "198.51.100.7").post("/login").then().statusCode(429)
                .header("Retry-After", "2");
        app.client().header("X-Forwarded-For", "198.51.100.8").post("/login").then().statusCode(200);
    }

    @Test
    void theBackOfficeIsNeverLimited() {
        for (int i = 0; i < 3; i++) {
            app.client().header("X-Forwarded-For", "10.1.2.3").post("/login").then().statusCode(200)
                    .header("RateLimit", nullValue());
        }
    }
}
