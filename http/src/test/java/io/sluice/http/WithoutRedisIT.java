package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.config.ConfigException;
import io.sluice.core.store.StoreProvider;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A WAR without {@code sluice-redis}: run by its own failsafe execution, with that jar (and Jedis) off the class path.
 * A Redis URL stops start-up naming the dependency to add, before anything connects; memory still works.
 */
class WithoutRedisIT {

    private static SluiceConfig load(Map<String, String> own) {
        return SluiceConfig.load(Parameters.of("sluice", k -> null, k -> null, own, "init-param"),
                value -> RulesSource.file(java.nio.file.Path.of(value)));
    }

    @Test
    void theRedisModuleIsNotOnTheClassPath() {
        assertThat(StoreProvider.find("redis://localhost:6379")).isEmpty();
    }

    @Test
    void aRedisUrlNamesTheDependencyToAdd() {
        assertThatThrownBy(() -> load(Map.of("limit", "1/s", "store", "redis://:secret@localhost:6379")))
                .isInstanceOf(ConfigException.class)
                .hasMessage("store (init-param): the Redis store is not on the class path: add the dependency"
                        + " io.sluice:sluice-redis (the jar sluice-redis-<version>.jar in WEB-INF/lib),"
                        + " got \"redis://:***@localhost:6379\"");
        assertThatThrownBy(() -> load(Map.of("limit", "1/s", "store", "redis-cluster://10.0.0.7:7000")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("io.sluice:sluice-redis");
    }

    @Test
    void theMemoryStoreNeedsNothingMore() {
        assertThat(load(Map.of("limit", "1/s")).store()).isEqualTo("memory");
    }
}
