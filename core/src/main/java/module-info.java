/**
 * Sluice's core: the engine, rules and their policies, the algorithms, keys, the store SPI and the memory store.
 * Framework-free. The exported packages are the API; {@code io.sluice.core.algorithm} and {@code io.sluice.core.internal...}
 * serve Sluice's own modules only.
 *
 * <p>"module": the qualified exports name modules that depend on this one, so are compiled after it; javac reports them
 * as "module not found". {@code ModuleGraphTest} (in {@code examples}) checks that each names a module of the build.
 */
@SuppressWarnings("module")
module io.sluice.core {
    requires com.github.benmanes.caffeine;

    exports io.sluice.core;
    exports io.sluice.core.config;
    exports io.sluice.core.key;
    exports io.sluice.core.log;
    exports io.sluice.core.policy;
    exports io.sluice.core.request;
    exports io.sluice.core.store;
    exports io.sluice.core.time;
    exports io.sluice.core.algorithm to io.sluice.redis;
    exports io.sluice.core.internal to
            io.sluice.redis, io.sluice.http, io.sluice.micrometer, io.sluice.cdi, io.sluice.filter, io.sluice.jaxrs;
    exports io.sluice.core.internal.rules to io.sluice.http, io.sluice.jaxrs;

    uses io.sluice.core.store.StoreProvider;
}
