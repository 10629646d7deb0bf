package io.sluice.core.cdi;

import io.sluice.core.DecisionListener;
import io.sluice.core.Engine;
import io.sluice.core.config.MicroProfileConfig;
import io.sluice.core.config.Parameters;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.config.WebApps;
import io.sluice.core.http.FrontDoor;
import io.sluice.core.key.KeyResolver;
import io.sluice.core.store.Store;
import io.sluice.core.time.TimeSource;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Sluice's beans in a CDI application, registered by {@link SluiceExtension}. Reads what the application produces:
 *
 * <ul>
 *   <li>a {@link SluiceConfig}: one front door is built from it and shared by the servlet filter, the JAX-RS filter
 *       and {@code @Inject Engine};</li>
 *   <li>a {@link Store} (produce it {@code @Singleton} or {@code @ApplicationScoped}): every front door decides in it
 *       instead of the configured store, and the application keeps owning it;</li>
 *   <li>or a Jedis client ({@code UnifiedJedis}: {@code RedisClient}, {@code RedisClusterClient},
 *       {@code RedisSentinelClient}): every front door decides in a {@code RedisStore} around it, and the application
 *       keeps owning the client;</li>
 *   <li>{@code @Named} {@link KeyResolver}s: {@code @RateLimit(key = "tenant")} uses the one named {@code tenant};</li>
 *   <li>a {@link TimeSource}: the clock of the shared front door (tests and simulations).</li>
 * </ul>
 *
 * Produces {@link Engine}: the shared front door's engine, or, when the application produces no configuration, an
 * engine over the produced store (or memory) configured by system properties, environment variables and MicroProfile
 * Config, for programmatic checks ({@link Engine#tryAcquire}).
 */
@ApplicationScoped
public class SluiceBeans implements CdiIntegration {

    @Inject
    Instance<SluiceConfig> configs;
    @Inject
    Instance<Store> stores;
    @Inject
    Instance<redis.clients.jedis.UnifiedJedis> redisClients;
    @Inject
    Instance<TimeSource> clocks;
    @Inject
    @Any
    Instance<KeyResolver> resolvers;
    @Inject
    Event<RateLimitedEvent> denials;

    private FrontDoor shared;
    private FrontDoor programmatic;
    private Store aroundClient;

    @Override
    public synchronized FrontDoor sharedFrontDoor() {
        Instance<SluiceConfig> config = visible(configs, SluiceConfig.class);
        if (shared == null && config.isResolvable()) {
            shared = FrontDoor.open(config.get(), clock(), store(), List.of(events()));
        }
        return shared;
    }

    @Override
    public synchronized Store store() {
        Instance<Store> store = visible(stores, Store.class);
        if (store.isResolvable()) {
            return store.get();
        }
        Instance<redis.clients.jedis.UnifiedJedis> client = visible(redisClients, redis.clients.jedis.UnifiedJedis.class);
        if (client.isResolvable()) {
            if (aroundClient == null) {
                aroundClient = io.sluice.core.store.RedisStore.builder().client(client.get()).build();
            }
            return aroundClient;
        }
        return null;
    }

    @Override
    public Map<String, KeyResolver> keyResolvers() {
        Map<String, KeyResolver> named = new LinkedHashMap<>();
        for (Instance.Handle<KeyResolver> handle : visible(resolvers, KeyResolver.class, Any.Literal.INSTANCE).handles()) {
            String name = handle.getBean().getName();
            if (name != null) {
                named.put(name, handle.get());
            }
        }
        return named;
    }

    @Override
    public DecisionListener events() {
        return (request, decision, kind) -> {
            if (request != null && !decision.allowed() && decision.binding() != null) {
                denials.fire(RateLimitedEvent.of(request, decision));
            }
        };
    }

    /** @return the engine of the shared front door, else one for programmatic checks */
    @Produces
    @Dependent
    Engine engine() {
        FrontDoor door = sharedFrontDoor();
        return door != null ? door.engine() : programmatic().engine();
    }

    private synchronized FrontDoor programmatic() {
        if (programmatic == null) {
            Parameters parameters = MicroProfileConfig.addTo(Parameters.of(Parameters.DEFAULT_PREFIX, Map.of(), "CDI"));
            programmatic = FrontDoor.open(SluiceConfig.loadWithoutRules(parameters, WebApps.rulesSources(),
                    keyResolvers()), clock(), store(), List.of(events()));
        }
        return programmatic;
    }

    private TimeSource clock() {
        Instance<TimeSource> clock = visible(clocks, TimeSource.class);
        return clock.isResolvable() ? clock.get() : TimeSource.system();
    }

    /**
     * {@code injected}, or, when it finds no bean, the same lookup in the calling application's container
     * ({@code CDI.current()}, found by the thread's context class loader) when that one finds some. GlassFish and
     * Payara put a bean an extension adds, as {@link SluiceExtension} adds this one, in a bean archive of its own that
     * sees none of the application's beans: there the injected {@code Instance} is always unsatisfied, while the
     * application's container sees its producers. Elsewhere the injected one answers and nothing changes.
     */
    private static <T> Instance<T> visible(Instance<T> injected, Class<T> type,
            java.lang.annotation.Annotation... qualifiers) {
        if (!injected.isUnsatisfied()) {
            return injected;
        }
        try {
            Instance<T> current = jakarta.enterprise.inject.spi.CDI.current().select(type, qualifiers);
            return current.isUnsatisfied() ? injected : current;
        } catch (RuntimeException noContainerForThisThread) {
            return injected;
        }
    }

    @PreDestroy
    synchronized void close() {
        if (shared != null) {
            shared.close();
        }
        if (programmatic != null) {
            programmatic.close();
        }
    }
}
