package io.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.http.Parameters;
import io.sluice.http.SluiceConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DemoRateLimitFilterTest {

    /** The filter as web.xml declares it, with the system properties and environment given. */
    private static Parameters declared(Map<String, String> own, Map<String, String> environment) {
        return Parameters.of("sluice", name -> null, environment::get, own, "init-param");
    }

    private static final Map<String, String> DECLARED = Map.of("limit", "5/10s", "store", "memory");

    @Test
    void withoutSluiceRedisUrlTheDeclaredConfigurationIsUsedAsIs() {
        Parameters declared = declared(DECLARED, Map.of());

        assertThat(DemoRateLimitFilter.withRedisUrl(declared, name -> null)).isSameAs(declared);
    }

    @Test
    void aBlankSluiceRedisUrlChangesNothing() {
        Parameters declared = declared(DECLARED, Map.of());

        assertThat(DemoRateLimitFilter.withRedisUrl(declared, name -> "  ")).isSameAs(declared);
    }

    @Test
    void sluiceRedisUrlReplacesTheDeclaredStoreAndKeepsEverythingElse() {
        Map<String, String> environment = Map.of("SLUICE_REDIS_URL", " redis://cache:6379 ");

        Parameters p = DemoRateLimitFilter.withRedisUrl(declared(DECLARED, environment), environment::get);

        assertThat(p.get("store")).isEqualTo(new Parameters.Parameter("store", "redis://cache:6379",
                "SLUICE_REDIS_URL (environment variable)"));
        assertThat(p.get("limit")).isEqualTo(new Parameters.Parameter("limit", "5/10s", "limit (init-param)"));
        assertThat(p.ownNames()).containsExactlyInAnyOrder("limit", "store");
    }

    @Test
    void sluiceRedisUrlAddsAStoreWhenNoneIsDeclared() {
        Map<String, String> environment = Map.of("SLUICE_REDIS_URL", "redis://r:1");

        Parameters p = DemoRateLimitFilter.withRedisUrl(declared(Map.of("limit", "5/10s"), environment), environment::get);

        assertThat(p.ownNames()).containsExactlyInAnyOrder("limit", "store");
    }

    @Test
    void sluiceStoreStillWinsOverSluiceRedisUrl() {
        Map<String, String> environment = Map.of("SLUICE_REDIS_URL", "redis://r:1", "SLUICE_STORE", "memory");

        Parameters p = DemoRateLimitFilter.withRedisUrl(declared(DECLARED, environment), environment::get);

        assertThat(p.get("store").source()).isEqualTo("SLUICE_STORE (environment variable)");
    }

    /** Issue 24: the start-up log said "(from store (init-param))" for a store that SLUICE_REDIS_URL set. */
    @Test
    void theStartUpDescriptionNamesSluiceRedisUrlAsTheStoresSource() {
        Map<String, String> environment = Map.of("SLUICE_REDIS_URL", "redis://user:hunter2@cache:6379");

        SluiceConfig config = SluiceConfig.load(DemoRateLimitFilter.withRedisUrl(declared(DECLARED, environment),
                environment::get), value -> null, Map.of());

        assertThat(config.description())
                .contains("store = redis://user:***@cache:6379 (from SLUICE_REDIS_URL (environment variable))");
    }
}
