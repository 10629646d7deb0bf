package io.sluice.http;

import io.sluice.core.config.ConfigException;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.store.Store;
import io.sluice.core.store.StoreProvider;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A store of another module, as a third party would ship one: {@code test-store://...} URLs, registered in this
 * module's test resources for {@code ServiceLoader}. Opens a memory store and remembers the URLs it opened.
 */
public final class TestStoreProvider implements StoreProvider {

    /** The URLs {@link #open} was given. */
    static final List<String> OPENED = new CopyOnWriteArrayList<>();

    @Override
    public boolean accepts(String scheme) {
        return scheme.equals("test-store");
    }

    @Override
    public void check(String parameter, String url) {
        if (url.endsWith("/")) {
            throw new ConfigException(parameter, redact(url), "expected a name after the host");
        }
    }

    @Override
    public Store open(String url) {
        OPENED.add(url);
        return MemoryStore.create();
    }
}
