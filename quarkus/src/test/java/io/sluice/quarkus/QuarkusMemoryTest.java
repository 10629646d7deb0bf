package io.sluice.quarkus;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.startsWith;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.sluice.core.Engine;
import io.sluice.core.policy.Policy;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * Sluice in a Quarkus application over real HTTP, on the memory store: Quarkus REST runs the JAX-RS filter and
 * {@code @RateLimit}, {@code sluice.*} comes from application.properties, the decisions reach Quarkus' Micrometer
 * registry and the readiness check answers under {@code /q/health/ready}. Each test is its own client (header
 * {@code X-Client}), so their counters never meet.
 */
@QuarkusTest
class QuarkusMemoryTest {

    @Inject
    MeterRegistry registry;

    @Inject
    Engine engine;

    @Test
    void theConfiguredLimitAnswers429WithRetryAfterAndAJsonBody() {
        for (int i = 0; i < 3; i++) {
            given().header("X-Client", "limit").get("/api/hello").then().statusCode(200).body(equalTo("hello"))
                    .header("RateLimit-Policy", "\"per-client\";q=3;w=3600");
        }
        Response denied = given().header("X-Client", "limit").get("/api/hello");
        denied.then().statusCode(429).contentType(startsWith("application/json"))
                .body("error.code", equalTo("rate_limited")).body("error.context.policy", equalTo("per-client"));
        assertThat(Long.parseLong(denied.header("Retry-After"))).isBetween(1L, 3600L);
    }

    @Test
    void rateLimitOnAResourceMethodLimitsThatMethod() {
        given().header("X-Client", "reports").get("/api/report").then().statusCode(200);
        given().header("X-Client", "reports").get("/api/report").then().statusCode(200);
        given().header("X-Client", "reports").get("/api/report").then().statusCode(429)
                .body("error.context.policy", equalTo("reports"));
        given().header("X-Client", "reports").get("/api/hello").then().statusCode(200);   // the other method
    }

    @Test
    void rulesMatchThePathInsideTheApplicationAfterTheRootPath() {
        for (int i = 0; i < 5; i++) {          // excluded as /api/open: the root path /svc is not part of it
            given().header("X-Client", "excluded").get("/api/open").then().statusCode(200)
                    .header("RateLimit-Policy", (String) null);
        }
    }

    @Test
    void decisionsArePublishedToTheApplicationsMeterRegistry() {
        given().header("X-Client", "metrics").get("/api/hello").then().statusCode(200);
        assertThat(registry.find("sluice.decisions").tag("rule", "per-client").counters())
                .anySatisfy(c -> assertThat(c.count()).isPositive());
    }

    @Test
    void anInjectedEngineDecidesProgrammatically() {
        Policy twoAnHour = Policy.parse("2/1h");
        assertThat(engine.tryAcquire("partner", "acme", twoAnHour, 1).allowed()).isTrue();
        assertThat(engine.tryAcquire("partner", "acme", twoAnHour, 1).allowed()).isTrue();
        assertThat(engine.tryAcquire("partner", "acme", twoAnHour, 1).allowed()).isFalse();
    }

    @Test
    void theReadinessCheckReportsTheStore() {
        given().header("X-Client", "health").get("/api/hello").then().statusCode(200);
        given().get("/q/health/ready").then().statusCode(200)
                .body("checks.name", hasItem("sluice"))
                .body("checks.find { it.name == 'sluice' }.status", equalTo("UP"))
                .body("checks.find { it.name == 'sluice' }.data.store", equalTo("up"));
    }
}
