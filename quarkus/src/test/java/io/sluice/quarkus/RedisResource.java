package io.sluice.quarkus;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.sluice.core.testing.RedisProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;

/** A real redis-server for the application under test, which gets {@code sluice.store=redis://127.0.0.1:<port>...}. */
public class RedisResource implements QuarkusTestResourceLifecycleManager {

    private RedisProcess redis;

    @Override
    public Map<String, String> start() {
        try {
            redis = RedisProcess.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        // a time budget for a loaded test machine: the default 50 ms, missed, would answer by on-store-failure (allow)
        return Map.of("sluice.store", redis.url() + "?timeout=2s");
    }

    @Override
    public void inject(TestInjector injector) {
        injector.injectIntoFields(redis, new TestInjector.MatchesType(RedisProcess.class));
    }

    @Override
    public void stop() {
        try {
            if (redis != null) {
                redis.close();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
