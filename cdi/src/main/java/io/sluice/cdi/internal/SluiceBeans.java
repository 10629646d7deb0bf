package io.sluice.cdi.internal;

import io.sluice.cdi.RateLimitedEvent;
import io.sluice.core.DecisionListener;
import io.sluice.core.Engine;
import io.sluice.core.config.ConfigException;
import io.sluice.http.Parameters;
import io.sluice.http.SluiceConfig;
import io.sluice.http.internal.WebApps;
import io.sluice.http.spi.RuntimeIntegration;
import io.sluice.http.FrontDoor;
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
import jakarta.enterprise.inject.spi.CDI;
import jakarta.inject.Inject;
import java.lang.annotation.Annotation;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Sluice's beans in a CDI application, registered by {@link SluiceExtension}: the front doors'
 * {@link RuntimeIntegration} (found through {@link CdiIntegrationProvider}). Reads what the application produces:
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
 *   <li>a {@link TimeSource}: the clock of the shared front door (tests and simulations);</li>
 *   <li>a Micrometer {@code MeterRegistry}, when Micrometer is on the class path: every front door publishes its
 *       decisions there ({@link io.sluice.micrometer.MicrometerMetrics}), and the latency of a store other than
 *       the memory store.</li>
 * </ul>
 *
 * Produces {@link Engine}: the shared front door's engine, or, when the application produces no configuration, an
 * engine over the produced store (or memory) configured by system properties, environment variables and MicroProfile
 * Config, for programmatic checks ({@link Engine#tryAcquire}).
 */
@ApplicationScoped
public class SluiceBeans implements RuntimeIntegration {

    @Inject
    Instance<SluiceConfig> configs;
    @Inject
    Instance<Store> stores;
    @Inject
    Instance<TimeSource> clocks;
    @Inject
    @Any
    Instance<KeyResolver> resolvers;
    @Inject
    Event<RateLimitedEvent> denials;
    /** Every bean: a {@code MeterRegistry} is looked up in it only when Micrometer is present ({@link CdiMetrics}). */
    @Inject
    Instance<Object> beans;

    private FrontDoor shared;
    private FrontDoor programmatic;
    /** The produced store, or the {@code RedisStore} around the produced client: asked for once. */
    private Store store;
    private boolean storeResolved;
    /** The metrics of the produced registry, shared by every front door: asked for once, when found. */
    private CdiMetrics metrics;
    /** Every front door opened here, for the readiness check; they end with the application. */
    private final List<FrontDoor> opened = new CopyOnWriteArrayList<>();

    @Override
    public synchronized FrontDoor sharedFrontDoor() {
        if (shared == null) {
            SluiceConfig config = one(visible(configs, SluiceConfig.class), SluiceConfig.class);
            if (config != null) {
                shared = open(config, clock());
                // once, for every front door that shares it: each of them logs only that it does
                System.getLogger(SluiceBeans.class.getName()).log(System.Logger.Level.INFO, "Sluice rate limiting"
                        + " (the application's produced SluiceConfig): " + shared.rules().summary() + "\n  "
                        + String.join("\n  ", description(config)));
            }
        }
        return shared;
    }

    /**
     * Asks for the produced store (or client) once: a producer in the default scope, {@code @Dependent}, makes a new
     * one each time it is asked, and every front door must decide in the same one.
     */
    @Override
    public synchronized Store store() {
        if (!storeResolved) {
            store = one(visible(stores, Store.class), Store.class);
            if (store == null) {
                store = RedisClientLookup.find(beans);
            }
            storeResolved = store != null;     // none seen: looked for again (another thread may see the application's)
        }
        return store;
    }

    @Override
    public FrontDoor open(SluiceConfig config, TimeSource time) {
        Store produced = store();
        CdiMetrics published = metrics();
        FrontDoor door;
        if (published == null) {
            door = FrontDoor.open(config, time, produced, List.of(events()));
        } else {
            door = FrontDoor.open(config, time, produced, List.of(events(), published.listener()), published::around);
            published.bind(door.engine());
        }
        opened.add(door);
        return door;
    }

    /**
     * @return the engines of the front doors opened so far (the shared one, the filters' own, the programmatic one);
     *     public, as a client proxy in another package (ArC's, of {@code sluice-quarkus}'s subclass) passes on public
     *     and protected calls only, and would answer a package-private one from its own empty state
     */
    public List<Engine> engines() {
        return opened.stream().map(FrontDoor::engine).toList();
    }

    @Override
    public List<String> description(SluiceConfig config) {
        List<String> lines = config.description(store());
        if (metrics() == null) {
            return lines;
        }
        List<String> with = new ArrayList<>(lines);
        with.add(CdiMetrics.DESCRIPTION);
        return with;
    }

    /**
     * Asks for the produced {@code MeterRegistry} once found: every front door counts into the same meters (one
     * {@code MicrometerMetrics}).
     */
    private synchronized CdiMetrics metrics() {
        if (metrics == null) {
            metrics = CdiMetrics.find(beans);
        }
        return metrics;
    }

    /**
     * @return the one bean of {@code instance}, or null when there is none
     * @throws ConfigException when the application produces more than one: naming the type and the beans, rather than
     *     ignoring them all
     */
    static <T> T one(Instance<T> instance, Class<T> type) {
        if (instance.isUnsatisfied()) {
            return null;
        }
        if (instance.isAmbiguous()) {
            List<String> beans = new ArrayList<>();
            instance.handles().forEach(h -> beans.add(h.getBean().toString()));
            throw new ConfigException("CDI: the application produces " + beans.size() + " beans of type "
                    + type.getName() + " with qualifier @Default, which is ambiguous: expected at most one (give the "
                    + "others a qualifier of their own, or mark one @Alternative @Priority): " + beans);
        }
        return instance.get();
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

    /**
     * @return the engine of the shared front door, else one for programmatic checks; protected for
     *     {@code sluice-quarkus}'s subclass, which produces it in Quarkus
     */
    @Produces
    @Dependent
    protected Engine engine() {
        FrontDoor door = sharedFrontDoor();
        return door != null ? door.engine() : programmatic().engine();
    }

    private synchronized FrontDoor programmatic() {
        if (programmatic == null) {
            Parameters parameters = MicroProfileConfig.addTo(Parameters.of(Parameters.DEFAULT_PREFIX, Map.of(), "CDI"));
            programmatic = FrontDoor.open(SluiceConfig.loadWithoutRules(parameters, WebApps.rulesSources(),
                    keyResolvers()), clock(), store(), List.of(events()));
            opened.add(programmatic);
        }
        return programmatic;
    }

    private TimeSource clock() {
        TimeSource clock = one(visible(clocks, TimeSource.class), TimeSource.class);
        return clock != null ? clock : TimeSource.system();
    }

    /**
     * {@code injected}, or, when it finds no bean, the same lookup in the calling application's container
     * ({@code CDI.current()}, found by the thread's context class loader) when that one finds some. GlassFish and
     * Payara put a bean an extension adds, as {@link SluiceExtension} adds this one, in a bean archive of its own that
     * sees none of the application's beans: there the injected {@code Instance} is always unsatisfied, while the
     * application's container sees its producers. Elsewhere the injected one answers and nothing changes.
     */
    static <T> Instance<T> visible(Instance<T> injected, Class<T> type,
            Annotation... qualifiers) {
        if (!injected.isUnsatisfied()) {
            return injected;
        }
        try {
            Instance<T> current = CDI.current().select(type, qualifiers);
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
