package io.sluice.demo;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;

import io.restassured.specification.RequestSpecification;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The demo's contract over real HTTP: the webapp as deployed (its web.xml and rules file) on embedded Jetty. */
class DemoIT {

    private static DemoServer demo;

    @BeforeAll
    static void start() throws Exception {
        demo = DemoServer.start("127.0.0.1", 0);
    }

    @AfterAll
    static void stop() throws Exception {
        demo.close();
    }

    private static RequestSpecification client() {
        return given().baseUri("http://127.0.0.1").port(demo.port());
    }

    @Test
    void helloAllowsFivePerTenSecondsWithBothHeaderStylesThenTheEnvelope() {
        for (int i = 0; i < 5; i++) {
            client().get("/api/hello").then().statusCode(200).contentType(startsWith("text/plain"))
                    .body(equalTo("hello\n"))
                    .header("RateLimit-Policy", "\"hello\";q=5;w=10")
                    .header("RateLimit", startsWith("\"hello\";r=" + (4 - i) + ";t="))
                    .header("X-RateLimit-Limit", "5")
                    .header("X-RateLimit-Remaining", Integer.toString(4 - i));
        }
        client().get("/api/hello").then().statusCode(429).header("Cache-Control", "no-store")
                .header("Retry-After", org.hamcrest.Matchers.notNullValue())
                .contentType("application/json")
                .body("error.code", equalTo("rate_limited"))
                .body("error.context.policy", equalTo("hello"))
                .body("error.context.limit", equalTo(5));
    }

    @Test
    void eachAlgorithmHasItsEndpointAndPolicy() {
        Map<String, String> policies = Map.of(
                "fixed-window", "\"fixed-window\";q=5;w=10",
                "sliding-window", "\"sliding-window\";q=5;w=10",
                "sliding-log", "\"sliding-log\";q=5;w=10",
                "token-bucket", "\"token-bucket\";q=5;w=",
                "leaky-bucket", "\"leaky-bucket\";q=5;w=",
                "gcra", "\"gcra\";q=5;w=",
                "warm-up", "\"warm-up\";q=5;w=1",
                "concurrency", "\"concurrency\";q=2;qu=\"concurrent-requests\"");
        policies.forEach((algorithm, policy) -> client().get("/api/algorithms/" + algorithm).then().statusCode(200)
                .body(equalTo("ok: " + algorithm + "\n"))
                .header("RateLimit-Policy", startsWith(policy)));
    }

    @Test
    void thePlaygroundIsServedWithoutAnyLimit() {
        for (int i = 0; i < 10; i++) {
            client().get("/").then().statusCode(200).body(containsString("Sluice playground"))
                    .header("RateLimit", org.hamcrest.Matchers.nullValue());
        }
        client().get("/playground.js").then().statusCode(200).body(containsString("fetch("));
    }
}
