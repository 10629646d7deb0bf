package io.sluice.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.http.spi.Integrations;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A web.xml WAR without {@code sluice-cdi}: this module's test class path has neither it nor the CDI API (the filter
 * depends on {@code sluice-http} alone), so the filter finds no runtime integration and reads its own parameters.
 */
class WithoutCdiTest {

    @Test
    void theClassPathHasNoCdiModuleAndTheFilterFindsNoIntegration() {
        assertThatThrownBy(() -> Class.forName("io.sluice.cdi.internal.CdiIntegrationProvider"))
                .isInstanceOf(ClassNotFoundException.class);
        assertThatThrownBy(() -> Class.forName("io.sluice.cdi.RateLimitedEvent"))
                .isInstanceOf(ClassNotFoundException.class);
        assertThatThrownBy(() -> Class.forName("jakarta.enterprise.inject.spi.CDI"))
                .isInstanceOf(ClassNotFoundException.class);
        assertThat(Integrations.find().providers()).isEmpty();
        assertThat(Integrations.find().integration()).isNull();
    }

    @Test
    void theFilterLimitsWithoutCdi() throws Exception {
        try (FilterServer server = FilterServer.start(Map.of("limit", "2/1h"))) {
            server.client().get("/x").then().statusCode(200).header("X-RateLimit-Remaining", "1");
            server.client().get("/x").then().statusCode(200).header("X-RateLimit-Remaining", "0");
            server.client().get("/x").then().statusCode(429);
        }
    }
}
