package com.example.greetings;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/** The example over real HTTP: the limit of application.yml, the method's @RateLimit, and Actuator. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class GreetingsApplicationTest {

    private final HttpClient client = HttpClient.newHttpClient();

    @LocalServerPort
    int port;

    @Test
    void greetingsAreRateLimited() throws Exception {
        assertThat(get("/greetings/ada").statusCode()).isEqualTo(200);
        assertThat(get("/greetings/ada").statusCode()).isEqualTo(200);
        HttpResponse<String> third = get("/greetings/ada");
        assertThat(third.statusCode()).as("the method's @RateLimit: 2 per minute").isEqualTo(429);
        assertThat(third.headers().firstValue("Retry-After")).isPresent();

        assertThat(get("/greetings").statusCode()).isEqualTo(200);
        assertThat(get("/greetings").statusCode()).isEqualTo(200);
        assertThat(get("/greetings").statusCode()).as("sluice.limit: 5 per minute, the three above counted too")
                .isEqualTo(429);

        assertThat(get("/actuator/health").body()).contains("\"sluice\"");
        assertThat(get("/actuator/sluice").body()).contains("\"name\":\"per-ip\"");
    }

    private HttpResponse<String> get(String path) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
