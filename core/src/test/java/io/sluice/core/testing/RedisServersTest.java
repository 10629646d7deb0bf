package io.sluice.core.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How {@code SLUICE_REDIS_SERVER} chooses the server every Redis test starts, and how a server is described. */
class RedisServersTest {

    @Test
    void unsetOrBlankChoosesNothing() throws Exception {
        assertThat(RedisServers.chosen(Map.of())).isEmpty();
        assertThat(RedisServers.chosen(Map.of("SLUICE_REDIS_SERVER", " "))).isEmpty();
    }

    @Test
    void aPathACommandOnThePathOrTheEmbeddedServer(@TempDir Path dir) throws Exception {
        Path wrapper = Files.writeString(dir.resolve("redis-8.0"), "#!/bin/sh\nexec redis-server \"$@\"\n");
        assertThat(wrapper.toFile().setExecutable(true)).isTrue();

        assertThat(RedisServers.chosen(Map.of("SLUICE_REDIS_SERVER", wrapper.toString()))).contains(wrapper);
        assertThat(RedisServers.chosen(Map.of("SLUICE_REDIS_SERVER", "redis-8.0", "PATH", "/nowhere:" + dir)))
                .contains(wrapper);
        assertThat(RedisServers.chosen(Map.of("SLUICE_REDIS_SERVER", "embedded"))).contains(RedisServers.embedded());
    }

    @Test
    void aServerThatIsNotThereFailsNamingTheVariableAndTheValue(@TempDir Path dir) throws Exception {
        Path notExecutable = Files.writeString(dir.resolve("redis-server"), "");
        for (String value : new String[] {dir.resolve("missing").toString(), notExecutable.toString(), "valkey-9"}) {
            assertThatThrownBy(() -> RedisServers.chosen(Map.of("SLUICE_REDIS_SERVER", value, "PATH", dir.toString())))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("SLUICE_REDIS_SERVER=" + value + ": no such executable");
        }
    }

    @Test
    void valkeyIsNamedWithItsOwnVersionAndTheRedisVersionItAnswersAs() {
        assertThat(RedisServers.describe("# Server\r\nredis_version:7.0.15\r\nredis_mode:standalone\r\n"))
                .isEqualTo("Redis 7.0.15");
        assertThat(RedisServers.describe("# Server\r\nredis_version:7.2.4\r\nserver_name:valkey\r\n"
                + "valkey_version:8.0.1\r\n")).isEqualTo("Valkey 8.0.1 (redis_version 7.2.4)");
    }
}
