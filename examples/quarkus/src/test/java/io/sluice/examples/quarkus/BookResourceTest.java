package io.sluice.examples.quarkus;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.notNullValue;

import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

/** The example over real HTTP: the search's own limit, its 429, the readiness check. */
@QuarkusTest
class BookResourceTest {

    @Test
    void theSearchAnswers429AfterFiveAMinute() {
        for (int i = 0; i < 5; i++) {
            given().queryParam("q", "e").get("/books/search").then().statusCode(200)
                    .header("RateLimit-Policy", "\"search\";q=5;w=60");
        }
        given().queryParam("q", "e").get("/books/search").then().statusCode(429)
                .header("Retry-After", notNullValue()).body("error.code", equalTo("rate_limited"));
        given().get("/books").then().statusCode(200);                        // the list is under its own rule
    }

    @Test
    void sluiceReportsItsReadiness() {
        given().get("/q/health/ready").then().statusCode(200).body("checks.name", hasItem("sluice"));
    }
}
