package io.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;

/**
 * {@code @RateLimit} on a {@code @RestController} and its methods, over real HTTP, as on a JAX-RS resource: the class's
 * rule counts every method, a method's its own as well, all or nothing; a handler without annotations is not limited
 * (no {@code sluice.limit} here).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
class AnnotationIT {

    @LocalServerPort
    int port;

    @Test
    void handlerAnnotationsLimitTheirMethods() {
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> hello = Http.get(port, "/hello");
            assertThat(hello.statusCode()).isEqualTo(200);
            assertThat(hello.headers().firstValue("RateLimit-Policy")).isEmpty();
        }
        HttpResponse<String> export = Http.get(port, "/reports/export");
        assertThat(export.statusCode()).isEqualTo(200);
        assertThat(export.headers().firstValue("RateLimit-Policy")).hasValueSatisfying(
                v -> assertThat(v).contains("\"Reports.export\";q=1"));
        HttpResponse<String> denied = Http.get(port, "/reports/export");
        assertThat(denied.statusCode()).as("the method's own rule").isEqualTo(429);
        assertThat(denied.headers().firstValue("Retry-After")).isPresent();
        assertThat(denied.body()).as("the filter's answer, not the handler's").contains("\"rate_limited\"");

        assertThat(Http.get(port, "/reports").statusCode()).isEqualTo(200);
        assertThat(Http.get(port, "/reports").statusCode()).isEqualTo(200);
        assertThat(Http.get(port, "/reports").statusCode()).as("the class's rule, which the export counted once")
                .isEqualTo(429);
    }

    @Test
    void anInvalidAnnotationValueStopsStartUpNamingTheHandler() {
        String key = TestApplication.Reports.class.getName() + "/export/RateLimit/value";
        assertThatThrownBy(() -> new SpringApplicationBuilder(TestApplication.class)
                .properties("server.port=0", key + "=lots").run().close())
                .hasMessageContaining("@RateLimit on " + TestApplication.Reports.class.getName())
                .hasMessageContaining("\"lots\"");
    }
}
