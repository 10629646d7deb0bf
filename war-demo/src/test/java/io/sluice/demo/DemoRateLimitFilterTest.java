package io.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletContext;
import java.util.Collections;
import java.util.Enumeration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DemoRateLimitFilterTest {

    /** The filter as web.xml declares it. */
    private record Declared(Map<String, String> parameters) implements FilterConfig {
        @Override
        public String getFilterName() {
            return "sluice";
        }

        @Override
        public ServletContext getServletContext() {
            return null;
        }

        @Override
        public String getInitParameter(String name) {
            return parameters.get(name);
        }

        @Override
        public Enumeration<String> getInitParameterNames() {
            return Collections.enumeration(parameters.keySet());
        }
    }

    private static final Declared DECLARED = new Declared(Map.of("rules", "/WEB-INF/sluice-rules.yaml",
            "store", "memory"));

    @Test
    void withoutSluiceRedisUrlTheDeclaredConfigurationIsUsedAsIs() {
        assertThat(DemoRateLimitFilter.withRedisUrl(DECLARED, name -> null)).isSameAs(DECLARED);
    }

    @Test
    void aBlankSluiceRedisUrlChangesNothing() {
        assertThat(DemoRateLimitFilter.withRedisUrl(DECLARED, name -> "  ")).isSameAs(DECLARED);
    }

    @Test
    void sluiceRedisUrlReplacesTheDeclaredStoreAndKeepsEverythingElse() {
        Map<String, String> environment = Map.of("SLUICE_REDIS_URL", " redis://cache:6379 ");

        FilterConfig config = DemoRateLimitFilter.withRedisUrl(DECLARED, environment::get);

        assertThat(config.getInitParameter("store")).isEqualTo("redis://cache:6379");
        assertThat(config.getInitParameter("rules")).isEqualTo("/WEB-INF/sluice-rules.yaml");
        assertThat(Collections.list(config.getInitParameterNames())).containsExactlyInAnyOrder("rules", "store");
        assertThat(config.getFilterName()).isEqualTo("sluice");
    }

    @Test
    void sluiceRedisUrlAddsAStoreWhenNoneIsDeclared() {
        Declared declared = new Declared(Map.of("limit", "5/10s"));

        FilterConfig config = DemoRateLimitFilter.withRedisUrl(declared, Map.of("SLUICE_REDIS_URL", "redis://r:1")::get);

        assertThat(Collections.list(config.getInitParameterNames())).containsExactlyInAnyOrder("limit", "store");
    }
}
