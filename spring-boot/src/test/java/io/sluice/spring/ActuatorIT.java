package io.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;

/**
 * The Actuator side over real HTTP: the {@code sluice} health indicator, and the endpoint {@code /actuator/sluice}
 * (status, rules in force; inspect and reset refused to a caller who is not authenticated, as any caller of an
 * application without security), exposed as the application exposes its endpoints. SecurityIT: with Spring Security.
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
    void endpointShowsTheRulesAndKeepsKeysToOperators() {
        HttpResponse<String> status = Http.get(port, "/actuator/sluice");
        assertThat(status.statusCode()).isEqualTo(200);
        assertThat(status.body()).contains("\"name\":\"per-ip\"", "\"origin\":\"parameter\"", "\"store\":\"up\"");

        assertThat(Http.get(port, "/hello").statusCode()).isEqualTo(200);
        assertThat(Http.get(port, "/hello").statusCode()).isEqualTo(200);
        assertThat(Http.get(port, "/hello").statusCode()).isEqualTo(429);
        HttpResponse<String> inspected = Http.get(port, "/actuator/sluice/per-ip/127.0.0.1");
        assertThat(inspected.statusCode()).as("no authenticated caller in role sluice-admin").isEqualTo(403);
        assertThat(inspected.body()).contains("role sluice-admin (sluice.admin-role)");
        assertThat(Http.delete(port, "/actuator/sluice/per-ip/127.0.0.1").statusCode()).isEqualTo(403);
        assertThat(Http.get(port, "/hello").statusCode()).as("not reset").isEqualTo(429);
    }
}
