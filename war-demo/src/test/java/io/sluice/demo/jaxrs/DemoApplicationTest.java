package io.sluice.demo.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class DemoApplicationTest {

    @Test
    void sluiceRedisUrlKeepsTheJaxrsLimitsInRedisToo() {
        assertThat(DemoApplication.properties(Map.of("SLUICE_REDIS_URL", " redis://cache:6379 ")::get))
                .containsExactly(Map.entry("sluice.store", "redis://cache:6379"));
        assertThat(DemoApplication.properties(Map.<String, String>of()::get)).isEmpty();
    }
}
