package io.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;

/**
 * The Actuator side over real HTTP: the {@code sluice} health indicator, and the endpoint {@code /actuator/sluice}
 * (status, rules in force, inspect and reset), exposed as the application exposes its endpoints.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "sluice.limit=2/1h", "sluice.exclude=/actuator/**"})
@DirtiesContext
class ActuatorIT {

    @LocalServerPort
    int port;

    @Test
    void healthSaysTheStoreAnswers() {
        HttpResponse<String> health = Http.get(port, "/actuator/health");
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.body()).contains(
                "\"sluice\":{\"details\":{\"store\":\"up\",\"readinessOnStoreFailure\":\"up\"},\"status\":\"UP\"}");
    }

    @Test
    void endpointShowsTheRulesAndResetsAKey() {
        HttpResponse<String> status = Http.get(port, "/actuator/sluice");
        assertThat(status.statusCode()).isEqualTo(200);
        assertThat(status.body()).contains("\"name\":\"per-ip\"", "\"origin\":\"parameter\"", "\"store\":\"up\"");

        assertThat(Http.get(port, "/hello").statusCode()).isEqualTo(200);
        assertThat(Http.get(port, "/hello").statusCode()).isEqualTo(200);
        assertThat(Http.get(port, "/hello").statusCode()).isEqualTo(429);
        HttpResponse<String> inspected = Http.get(port, "/actuator/sluice/per-ip/127.0.0.1");
        assertThat(inspected.statusCode()).isEqualTo(200);
        assertThat(inspected.body()).contains("\"remaining\":0", "\"limit\":2");

        assertThat(Http.delete(port, "/actuator/sluice/per-ip/127.0.0.1").statusCode()).isEqualTo(200);
        assertThat(Http.get(port, "/hello").statusCode()).as("reset: admitted again").isEqualTo(200);
        assertThat(Http.delete(port, "/actuator/sluice/no-such-rule/127.0.0.1").statusCode()).isEqualTo(404);
        assertThat(Http.get(port, "/actuator/sluice/no-such-rule/127.0.0.1").statusCode()).isEqualTo(404);
    }
}
