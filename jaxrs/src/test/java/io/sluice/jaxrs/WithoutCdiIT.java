package io.sluice.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.http.spi.Integrations;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A plain servlet container with {@code sluice-cdi} in the WAR: Failsafe runs this class in an execution of its own
 * whose class path has no CDI API and no Weld (see this module's pom), so any CDI class Sluice touched would fail with
 * {@code NoClassDefFoundError}. The CDI integration is found and answers that there is no CDI.
 */
class WithoutCdiIT {

    @Test
    void theClassPathHasNoCdi() {
        assertThatThrownBy(() -> Class.forName("jakarta.enterprise.inject.spi.CDI"))
                .isInstanceOf(ClassNotFoundException.class);
        Integrations runtime = Integrations.find();
        assertThat(runtime.providers()).extracting(p -> p.getClass().getName())
                .containsExactly("io.sluice.cdi.internal.CdiIntegrationProvider");
        assertThat(runtime.integration()).isNull();
    }

    @Test
    void jerseyAndTheServletFilterLimitWithoutCdi() throws Exception {
        limitsWithoutCdi(new Jersey());
    }

    @Test
    void resteasyAndTheServletFilterLimitWithoutCdi() throws Exception {
        limitsWithoutCdi(new Resteasy());
    }

    private static void limitsWithoutCdi(JaxrsServer.Implementation implementation) throws Exception {
        JaxrsServer.Setup setup = new JaxrsServer.Setup().servletFilter(Map.of("limit", "100/1h")).featureByClass();
        try (JaxrsServer server = new JaxrsServer(implementation, setup)) {
            server.client().get("/plain/x").then().statusCode(200).header("X-RateLimit-Remaining", "99");
            server.client().get("/api/limited/b").then().statusCode(200);
            server.client().get("/api/limited/b").then().statusCode(429).header("RateLimit-Policy", "\"Limited.b\";q=1;w=3600");
        }
    }
}
