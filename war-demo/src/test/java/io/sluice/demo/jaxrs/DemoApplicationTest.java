package io.sluice.demo.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.http.Parameters;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DemoApplicationTest {

    @Test
    void sluiceRedisUrlKeepsTheJaxrsLimitsInRedisToo() {
        assertThat(DemoApplication.properties(Map.of("SLUICE_REDIS_URL", " redis://cache:6379 ")::get))
                .contains(Map.entry("sluice.store", new Parameters.Sourced("redis://cache:6379",
                        "SLUICE_REDIS_URL (environment variable)")));
        assertThat(DemoApplication.properties(Map.<String, String>of()::get)).doesNotContainKey("sluice.store");
    }

    /** Issue 24: two Jersey warnings at every demo start, for WADL and the DataSource provider the demo never uses. */
    @Test
    void jerseyIsToldToLeaveOutWadlAndTheDataSourceProvider() {
        assertThat(DemoApplication.properties(Map.<String, String>of()::get))
                .containsEntry("jersey.config.server.wadl.disableWadl", true)
                .containsEntry("jersey.config.disableDefaultProvider", "DATASOURCE");
    }
}
