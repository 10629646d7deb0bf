package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.Rule;
import io.sluice.core.StoreHealth;
import io.sluice.core.config.ConfigException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StoreHealthReportTest {

    private static final StoreHealth UP = new StoreHealth(true, -1, Map.of(), 0, 0);
    private static final StoreHealth FAILING = new StoreHealth(false, 1_764_000_000_123_456L, Map.of(
            Rule.FailureMode.ALLOW, List.of("per-ip"), Rule.FailureMode.DENY, List.of("login"),
            Rule.FailureMode.LOCAL, List.of()), 7, 9);
    private static final StoreHealth FAILING_LATER = new StoreHealth(false, 1_764_000_001_000_000L, Map.of(
            Rule.FailureMode.ALLOW, List.of("per-ip", "search")), 3, 3);

    private static StoreHealthReport report(String value) {
        Map<String, String> own = value == null ? Map.of() : Map.of(StoreHealthReport.PARAMETER, value);
        return StoreHealthReport.configured(Parameters.of("sluice", k -> null, k -> null, own, "init-param"));
    }

    @Test
    void upByDefaultWhileTheStoreFailsAndSaysSo() {
        StoreHealthReport report = report(null);
        assertThat(report.up(List.of(FAILING))).isTrue();
        assertThat(report.data(List.of(FAILING))).containsExactly(
                Map.entry("store", "failing"), Map.entry("failingSince", "2025-11-24T16:00:00.123456Z"),
                Map.entry("allow", "per-ip"), Map.entry("deny", "login"), Map.entry("outageDecisions", 7L),
                Map.entry("readinessOnStoreFailure", "up"));
    }

    @Test
    void downWhileAStoreFailsWhenConfiguredSo() {
        StoreHealthReport report = report("DOWN");
        assertThat(report.up(List.of(UP))).isTrue();
        assertThat(report.up(List.of(UP, FAILING))).isFalse();
        assertThat(report.data(List.of(UP))).containsExactly(Map.entry("store", "up"),
                Map.entry("readinessOnStoreFailure", "down"));
    }

    @Test
    void severalStoresTheEarliestFailureAndEveryRuleOnce() {
        Map<String, Object> data = report(null).data(List.of(FAILING_LATER, UP, FAILING));
        assertThat(data).containsEntry("failingSince", "2025-11-24T16:00:00.123456Z")
                .containsEntry("allow", "per-ip, search").containsEntry("outageDecisions", 10L);
        assertThat(report(null).data(List.of())).containsEntry("store", "none");
    }

    @Test
    void anotherValueStopsStartUpNamingIt() {
        assertThatThrownBy(() -> report("sometimes")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("readiness-on-store-failure").hasMessageContaining("sometimes");
    }
}
