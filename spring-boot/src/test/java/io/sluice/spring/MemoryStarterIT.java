package io.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.core.Engine;
import io.sluice.http.FrontDoor;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;

/**
 * The starter on the memory store, over real HTTP: {@code sluice.*} properties of {@code application.properties}
 * limit the application, the answers are the servlet filter's, and the metrics go to the application's registry.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "sluice.limit=3/1h", "sluice.exclude=/actuator/**"})
@DirtiesContext
class MemoryStarterIT {

    @LocalServerPort
    int port;
    @Autowired
    FrontDoor door;
    @Autowired
    Engine engine;
    @Autowired
    MeterRegistry registry;

    @Test
    void limitsByTheApplicationProperties() {
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> ok = Http.get(port, "/hello");
            assertThat(ok.statusCode()).isEqualTo(200);
            assertThat(ok.body()).isEqualTo("hello");
            assertThat(ok.headers().firstValue("RateLimit-Policy"))
                    .hasValueSatisfying(v -> assertThat(v).contains("q=3"));
        }
        HttpResponse<String> denied = Http.get(port, "/hello");
        assertThat(denied.statusCode()).isEqualTo(429);
        assertThat(denied.headers().firstValue("Retry-After")).isPresent();
        assertThat(engine).isSameAs(door.engine());
        assertThat(registry.get("sluice.decisions").tag("outcome", "denied").counter().count()).isEqualTo(1.0);
    }
}
