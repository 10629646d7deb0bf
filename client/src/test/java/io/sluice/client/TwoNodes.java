package io.sluice.client;

import io.sluice.core.Engine;
import io.sluice.core.testing.ManualTimeSource;
import io.sluice.redis.RedisStore;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Two nodes of a fleet: two engines, each with its own Redis store (its own connections) on one real
 * {@code redis-server}, on one manual clock (the stores use it: {@code applicationTime}), under a key prefix of their
 * own so that tests never share state.
 */
final class TwoNodes implements AutoCloseable {

    private static final AtomicInteger PREFIXES = new AtomicInteger();

    final ManualTimeSource clock = new ManualTimeSource();
    final Engine a;
    final Engine b;

    TwoNodes(String redisUrl) {
        String prefix = "out" + PREFIXES.incrementAndGet();
        a = engine(redisUrl, prefix);
        b = engine(redisUrl, prefix);
    }

    private Engine engine(String url, String prefix) {
        return Engine.builder().timeSource(clock)
                .store(RedisStore.builder().url(url).prefix(prefix).applicationTime(true).build())
                .build();
    }

    @Override
    public void close() {
        a.close();
        b.close();
    }
}
