package io.sluice.redis;

import io.sluice.core.store.Store;
import io.sluice.core.store.StoreProvider;

/**
 * Opens a {@link RedisStore} for {@code redis://}, {@code rediss://}, {@code redis-sentinel://} and
 * {@code redis-cluster://} URLs (and {@code rediss-sentinel://}, {@code rediss-cluster://}, which
 * {@link RedisStore.Builder#url} refuses with a message of their own). Registered for {@link java.util.ServiceLoader}.
 */
public final class RedisStoreProvider implements StoreProvider {

    @Override
    public boolean accepts(String scheme) {
        return scheme.matches("rediss?(-sentinel|-cluster)?");
    }

    @Override
    public void check(String parameter, String url) {
        RedisStore.checkUrl(parameter, url);
    }

    @Override
    public Store open(String url) {
        return RedisStore.builder().url(url).build();
    }
}
