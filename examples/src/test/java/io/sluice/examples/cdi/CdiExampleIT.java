package io.sluice.examples.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import io.restassured.response.Response;
import io.sluice.examples.ExampleServer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code src/main/webapps/cdi}: Sluice configured by what the application produces ({@link RateLimiting}), in embedded
 * Jetty with real Weld (servlet listener) and Jersey (with its CDI integration). Every test uses tenants of its own.
 */
class CdiExampleIT {

    @RegisterExtension
    static final ExampleServer app = ExampleServer.of("cdi");

    @Test
    void theProducedConfigurationLimitsEveryTenantToThreeRequestsAMinute() {
        long start = System.currentTimeMillis();
        for (int remaining = 2; remaining >= 0; remaining--) {
            app.client().header("X-Tenant", "acme").get("/api/reports").then().statusCode(200)
                    .body(equalTo("q1\nq2\nq3\n"))
                    .header("RateLimit-Policy", "\"per-tenant\";q=3;w=60")
                    .header("X-RateLimit-Remaining", Integer.toString(remaining));
        }
        Response denied = app.client().header("X-Tenant", "acme").get("/api/reports");

        denied.then().statusCode(429).body("error.context.policy", equalTo("per-tenant"));
        // GCRA: one more every 60 s / 3, counted from the first request
        assertThat(Integer.parseInt(denied.header("Retry-After")))
                .isBetween(20 - ExampleServer.secondsSince(start), 20);
        app.client().header("X-Tenant", "globex").get("/api/reports").then().statusCode(200)
                .header("X-RateLimit-Remaining", "2");
    }

    @Test
    void theExportAnnotationCountsByTheProducedTenantResolverToo() {
        app.client().header("X-Tenant", "initech").get("/api/reports/export").then().statusCode(200)
                .header("RateLimit-Policy", "\"exports\";q=1;w=3600");         // the rule with least left
        app.client().header("X-Tenant", "initech").get("/api/reports/export").then().statusCode(429)
                .body("error.context.policy", equalTo("exports"));
        app.client().header("X-Tenant", "umbrella").get("/api/reports/export").then().statusCode(200);
    }

    @Test
    void theObserverSeesEveryDenialWithItsRule() {
        for (int i = 0; i < 5; i++) {
            app.client().header("X-Tenant", "hooli").get("/api/reports");
        }

        // requests without a tenant are not limited (the key is missing), so asking is free
        String before = app.client().get("/api/reports/denials").then().statusCode(200).extract().asString();
        app.client().header("X-Tenant", "hooli").get("/api/reports").then().statusCode(429);
        String after = app.client().get("/api/reports/denials").then().statusCode(200).extract().asString();

        assertThat(perTenant(after)).isEqualTo(perTenant(before) + 1);
        assertThat(perTenant(before)).isGreaterThanOrEqualTo(2);
    }

    private static long perTenant(String json) {
        Matcher m = Pattern.compile("\"per-tenant\":(\\d+)").matcher(json);
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }
}
