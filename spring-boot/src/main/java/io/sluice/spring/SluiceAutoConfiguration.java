package io.sluice.spring;

import io.sluice.core.Engine;
import io.sluice.core.config.ConfigException;
import io.sluice.core.key.KeyResolver;
import io.sluice.core.store.Store;
import io.sluice.core.time.TimeSource;
import io.sluice.filter.RateLimitFilter;
import io.sluice.http.FrontDoor;
import io.sluice.http.Parameters;
import io.sluice.http.SluiceConfig;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.io.ResourceLoader;

/**
 * Sluice's Spring Boot starter: the servlet filter ({@link RateLimitFilter}) over one {@link FrontDoor}, configured by
 * the {@code sluice.*} properties of the application ({@code application.properties} or {@code .yml}, profiles, and
 * as everywhere system properties and environment variables, which win): the names, meanings and checks of the
 * servlet filter's parameters (docs/configuration.md), read through {@link SpringParameters}. An invalid value fails
 * start-up naming the property, where it came from and the value.
 *
 * <ul>
 *   <li>the filter is registered at order {@code sluice.filter-order} ({@value #DEFAULT_FILTER_ORDER} by default: after
 *       Spring Security's filter chain, so that {@code principal} keys see the user), on every path;</li>
 *   <li>the store: a {@link Store} bean of the application, else a store around its Jedis client bean
 *       ({@link RedisClientConfiguration}), else {@code sluice.store} ({@code memory}, or a {@code redis://} URL);</li>
 *   <li>the application's {@code MeterRegistry} gets Sluice's metrics ({@link MicrometerBinding}), Actuator a
 *       {@code sluice} endpoint and health indicator ({@link SluiceActuatorConfiguration}), Spring MVC handler methods
 *       their {@code @RateLimit} annotations ({@link SluiceWebMvcConfiguration}), each when the application has
 *       it;</li>
 *   <li>{@code @Autowired FrontDoor} and {@code @Autowired Engine} give the programmatic API.</li>
 * </ul>
 *
 * {@code sluice.enabled=false} turns all of it off.
 */
@AutoConfiguration
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnProperty(prefix = "sluice", name = "enabled", havingValue = "true", matchIfMissing = true)
@Import({RedisClientConfiguration.class, MetricsConfiguration.class, SluiceActuatorConfiguration.class,
        SluiceWebMvcConfiguration.class})
public class SluiceAutoConfiguration {

    /** The filter's order when {@code sluice.filter-order} is not set: {@value}, after Spring Security's (-100). */
    public static final int DEFAULT_FILTER_ORDER = 0;
    /** The name of the filter's registration: {@value}. */
    public static final String FILTER_NAME = "sluice";
    /** The front door's bean name: {@value}. */
    static final String FRONT_DOOR_BEAN = "sluiceFrontDoor";

    private static final System.Logger LOG = System.getLogger(SluiceAutoConfiguration.class.getName());

    /**
     * @return the front door of the filter and the annotations, from the {@code sluice.*} properties; closed with the
     *     application context
     * @throws ConfigException naming the first invalid parameter, where it came from, and its value
     */
    @Bean(FRONT_DOOR_BEAN)
    @ConditionalOnMissingBean
    public FrontDoor sluiceFrontDoor(ConfigurableEnvironment environment, ResourceLoader resources,
            ObjectProvider<Store> stores, ObjectProvider<SluiceMetrics> metrics,
            ConfigurableListableBeanFactory beans) {
        SpringParameters.rejectUnknown(environment);
        SluiceConfig config = SluiceConfig.loadWithoutRules(SpringParameters.of(environment),
                SpringParameters.rulesSources(resources), beans.getBeansOfType(KeyResolver.class));
        Store store = stores.getIfUnique();
        if (store != null) {
            closeBefore(beans, store);
        }
        SluiceMetrics m = metrics.getIfAvailable();
        FrontDoor door = FrontDoor.open(config, TimeSource.system(), store,
                m == null ? List.of() : List.of(m.listener()), m == null ? UnaryOperator.identity() : m::around);
        if (m != null) {
            m.bind(door.engine());
        }
        LOG.log(Level.INFO, "Sluice rate limiting (Spring Boot): " + door.rules().summary() + "\n  "
                + String.join("\n  ", description(config, store, m != null)));
        return door;
    }

    /**
     * Records the front door as depending on the store bean it decides in, so that Spring closes the front door first
     * (its engine leaves the store's fleet while the store answers), then the store, then what the store is built from
     * (the application's Jedis client): on the context's close, and when one of them is destroyed on its own. A lookup
     * through an {@link ObjectProvider} records no such dependency.
     */
    private static void closeBefore(ConfigurableListableBeanFactory beans, Store store) {
        for (String name : beans.getBeanNamesForType(Store.class, true, false)) {
            if (beans.containsSingleton(name) && beans.getBean(name) == store) {
                beans.registerDependentBean(name, FRONT_DOOR_BEAN);
            }
        }
    }

    /** @return the configuration described, with the application's store bean and its metrics when there are */
    private static List<String> description(SluiceConfig config, Store store, boolean metrics) {
        List<String> lines = new ArrayList<>();
        for (String line : config.description()) {
            lines.add(store != null && line.startsWith("store = ")
                    ? "store = the application's " + store.getClass().getSimpleName() + " bean" : line);
        }
        if (metrics) {
            lines.add(SluiceMetrics.DESCRIPTION);
        }
        return lines;
    }

    /** @return the front door's engine, for {@code @Autowired Engine}: closed with the front door, not on its own */
    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean
    public Engine sluiceEngine(FrontDoor door) {
        return door.engine();
    }

    /**
     * @return the servlet filter over {@code door}, on every path, at order {@code sluice.filter-order}
     * @throws ConfigException when {@code sluice.filter-order} is not an integer
     */
    @Bean
    public FilterRegistrationBean<RateLimitFilter> sluiceFilter(FrontDoor door, ConfigurableEnvironment environment) {
        FilterRegistrationBean<RateLimitFilter> registration = new FilterRegistrationBean<>(new RateLimitFilter(door));
        registration.setName(FILTER_NAME);
        registration.setOrder(filterOrder(SpringParameters.of(environment)));
        registration.setAsyncSupported(true);           // queued requests wait in asynchronous mode, not on a thread
        registration.addUrlPatterns("/*");
        return registration;
    }

    /** @return parameter {@code filter-order}, or {@link #DEFAULT_FILTER_ORDER} */
    static int filterOrder(Parameters parameters) {
        Parameters.Parameter order = parameters.get("filter-order");
        if (order == null) {
            return DEFAULT_FILTER_ORDER;
        }
        try {
            return Integer.parseInt(order.value());
        } catch (NumberFormatException e) {
            throw new ConfigException(order.source(), order.value(), "expected the filter's order, an integer such as "
                    + DEFAULT_FILTER_ORDER + " (lower runs earlier; Spring Security's chain is at -100)");
        }
    }
}
