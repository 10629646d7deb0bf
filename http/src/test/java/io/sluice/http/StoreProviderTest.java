package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.config.ConfigException;
import io.sluice.core.request.RequestView;
import io.sluice.core.testing.ManualTimeSource;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code store=} reaches a store of any module on the class path by its URL's scheme ({@link TestStoreProvider},
 * registered in this module's test resources), not only Redis: checked at start-up, its secrets redacted by the
 * provider, opened by the front door.
 */
class StoreProviderTest {

    private static SluiceConfig load(String store) {
        return SluiceConfig.load(Parameters.of("sluice", Map.of("limit", "1/1s", "store", store), "init-param"),
                SluiceConfig.files());
    }

    @Test
    void aStoreOfAnotherModuleIsFoundByItsScheme() {
        SluiceConfig config = load("test-store://app:hunter2@host/counters");

        assertThat(config.store()).isEqualTo("test-store://app:hunter2@host/counters");
        assertThat(config.description()).contains(
                "store = test-store://app:***@host/counters (from store (init-param))");
        FrontDoor door = FrontDoor.open(config, new ManualTimeSource());
        assertThat(TestStoreProvider.OPENED).contains("test-store://app:hunter2@host/counters");
        RequestView client = RequestView.builder("GET", "/api").remoteAddress("203.0.113.9").build();
        assertThat(door.check(client).allowed()).isTrue();
        assertThat(door.check(client).allowed()).as("the second of 1/1s, in the provider's store").isFalse();
    }

    @Test
    void theProviderChecksItsUrlAtStartUp() {
        assertThatThrownBy(() -> load("test-store://host/")).isInstanceOf(ConfigException.class)
                .hasMessage("store (init-param): expected a name after the host, got \"test-store://host/\"");
    }

    @Test
    void aSchemeNoProviderAcceptsIsRefusedAsBefore() {
        assertThatThrownBy(() -> load("mongodb://host")).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("store (init-param): expected \"memory\" or a Redis URL");
    }
}
