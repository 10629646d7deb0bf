package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.config.ConfigException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ParametersTest {

    private static Parameters layers(Map<String, String> properties, Map<String, String> environment,
            Map<String, String> own) {
        return Parameters.of("sluice", properties::get, environment::get, own, "init-param");
    }

    @Test
    void systemPropertiesBeatTheEnvironmentWhichBeatsTheFrontDoorsOwnSettings() {
        Parameters p = layers(Map.of("sluice.limit", "1/s"), Map.of("SLUICE_LIMIT", "2/s", "SLUICE_TRUSTED_PROXIES", "10.0.0.0/8"),
                Map.of("limit", "3/s", "trusted-proxies", "127.0.0.1", "exclude", "/health"));

        assertThat(p.get("limit")).isEqualTo(new Parameters.Parameter("limit", "1/s", "sluice.limit (system property)"));
        assertThat(p.get("trusted-proxies")).isEqualTo(new Parameters.Parameter("trusted-proxies", "10.0.0.0/8",
                "SLUICE_TRUSTED_PROXIES (environment variable)"));
        assertThat(p.get("exclude")).isEqualTo(new Parameters.Parameter("exclude", "/health", "exclude (init-param)"));
        assertThat(p.get("store")).isNull();
    }

    @Test
    void blankValuesCountAsUnsetAndValuesAreTrimmed() {
        Parameters p = layers(Map.of("sluice.limit", " "), Map.of("SLUICE_LIMIT", ""), Map.of("limit", " 5/s "));

        assertThat(p.get("limit").value()).isEqualTo("5/s");
    }

    @Test
    void thePrefixNamesBothPropertyAndVariable() {
        Parameters p = Parameters.of("api-limits", Map.of("api-limits.reload-interval", "1s")::get, k -> null, Map.of(),
                "init-param");

        assertThat(p.propertyName("reload-interval")).isEqualTo("api-limits.reload-interval");
        assertThat(p.environmentName("reload-interval")).isEqualTo("API_LIMITS_RELOAD_INTERVAL");
        assertThat(p.get("reload-interval").value()).isEqualTo("1s");
    }

    @Test
    void aBadPrefixIsAConfigurationError() {
        assertThatThrownBy(() -> Parameters.of("my prefix", Map.of(), "init-param"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("config-prefix: expected letters, digits or '-', such as \"sluice\", got \"my prefix\"");
    }

    @Test
    void aConfigurationServiceComesAfterTheEnvironmentAndBeforeTheOwnSettings() {
        Map<String, String> service = Map.of("sluice.limit", "4/s", "sluice.exclude", "/metrics", "sluice.store", " ");
        Parameters p = layers(Map.of(), Map.of("SLUICE_LIMIT", "2/s"), Map.of("limit", "3/s", "exclude", "/health",
                "store", "memory")).withConfig(service::get, "MicroProfile Config");

        assertThat(p.get("limit").source()).isEqualTo("SLUICE_LIMIT (environment variable)");
        assertThat(p.get("exclude")).isEqualTo(new Parameters.Parameter("exclude", "/metrics",
                "sluice.exclude (MicroProfile Config)"));
        assertThat(p.get("store").source()).isEqualTo("store (init-param)");
    }

    @Test
    void anOwnSettingDerivedFromElsewhereKeepsItsRankAndNamesItsRealSource() {
        Parameters p = layers(Map.of(), Map.of("SLUICE_LIMIT", "2/s"), Map.of("limit", "3/s", "store", "memory"))
                .withOwn("store", "redis://cache:6379", "SLUICE_REDIS_URL (environment variable)")
                .withOwn("limit", "4/s", "LIMIT_FROM_ELSEWHERE (environment variable)");

        assertThat(p.get("store")).isEqualTo(new Parameters.Parameter("store", "redis://cache:6379",
                "SLUICE_REDIS_URL (environment variable)"));
        assertThat(p.ownSource("store")).isEqualTo("SLUICE_REDIS_URL (environment variable)");
        assertThat(p.get("limit").source()).as("the environment still wins").isEqualTo("SLUICE_LIMIT (environment variable)");
        assertThat(p.withConfig(k -> null, "MicroProfile Config").get("store").source())
                .isEqualTo("SLUICE_REDIS_URL (environment variable)");
    }

    @Test
    void sourcesAreAskedInTheOrderAddedAfterTheEnvironmentAndBeforeTheOwnSettings() {
        ParameterSource first = ParameterSource.of("Spring Environment", Map.of("sluice.limit", "4/s")::get);
        ParameterSource second = ParameterSource.of("MicroProfile Config",
                Map.of("sluice.limit", "5/s", "sluice.exclude", "/metrics", "sluice.store", "redis://cache:6379")::get);
        Parameters p = layers(Map.of(), Map.of("SLUICE_STORE", "memory"), Map.of("limit", "3/s", "exclude", "/health",
                "node-count", "2")).withSource(first).withSource(second);

        assertThat(p.sources()).containsExactly(first, second);
        assertThat(p.get("limit")).isEqualTo(new Parameters.Parameter("limit", "4/s", "sluice.limit (Spring Environment)"));
        assertThat(p.get("exclude").source()).isEqualTo("sluice.exclude (MicroProfile Config)");
        assertThat(p.get("store").source()).isEqualTo("SLUICE_STORE (environment variable)");
        assertThat(p.get("node-count").source()).isEqualTo("node-count (init-param)");
    }

    @Test
    void aSourcesNamesThatNearlySpellAParameterAreWarnedOfAndItsOtherNamesLeftAlone() {
        ParameterSource listed = ParameterSource.of("Spring Environment", name -> null,
                () -> Set.of("sluice.limt", "sluice.limit", "sluice.readiness-on-store-failure", "server.port"));
        Parameters p = layers(Map.of(), Map.of(), Map.of()).withSource(listed)
                .withSource(ParameterSource.of("MicroProfile Config", name -> null));

        assertThat(p.misspeltOverrides(List.of("limit", "store")))
                .containsExactly("sluice.limt (Spring Environment) is not a parameter; did you mean sluice.limit?");
    }
}
