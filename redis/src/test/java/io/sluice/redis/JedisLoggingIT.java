package io.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.testing.LogCapture;
import java.net.ServerSocket;
import java.util.Set;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.JedisSentinelPool;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Issue 30: Jedis logs through SLF4J, and Jedis 8 asked for SLF4J 1.7, which found no binding in a plain servlet
 * container: SLF4J printed {@code Failed to load class "org.slf4j.impl.StaticLoggerBinder"} and dropped Jedis's log.
 * sluice-redis brings SLF4J 2 and its java.util.logging provider, so Jedis's lines land where Sluice's do.
 */
class JedisLoggingIT {

    @Test
    void jedisLogsWhereSluiceLogs() throws Exception {
        int nothingListens;
        try (ServerSocket s = new ServerSocket(0)) {
            nothingListens = s.getLocalPort();
        }
        try (LogCapture log = new LogCapture("redis.clients.jedis")) {
            assertThatThrownBy(() -> new JedisSentinelPool("mymaster", Set.of("127.0.0.1:" + nothingListens)).close())
                    .isInstanceOf(JedisException.class);

            assertThat(log.messages()).as("Jedis's own log, through java.util.logging")
                    .anyMatch(m -> m.contains("redis.clients.jedis") && m.contains("127.0.0.1:" + nothingListens));
        }
    }
}
