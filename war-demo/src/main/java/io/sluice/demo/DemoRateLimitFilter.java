package io.sluice.demo;

import io.sluice.filter.RateLimitFilter;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.function.Function;

/**
 * The demo's {@link RateLimitFilter}: everything as declared in {@code web.xml}, except that the environment variable
 * {@value #REDIS_URL} (such as {@code redis://localhost:6379}), when set, replaces the packaged {@code store=memory}.
 *
 * <p>The filter's own layers still outrank it: {@code -Dsluice.store=...} and {@code SLUICE_STORE} win over
 * {@value #REDIS_URL}, which wins over the {@code init-param}. Without {@value #REDIS_URL} this is exactly
 * {@link RateLimitFilter}.
 */
public class DemoRateLimitFilter extends RateLimitFilter {

    /** The environment variable that points the demo at Redis: {@value}. */
    public static final String REDIS_URL = "SLUICE_REDIS_URL";

    private final Function<String, String> environment;

    /** A filter reading the process environment. */
    public DemoRateLimitFilter() {
        this(System::getenv);
    }

    DemoRateLimitFilter(Function<String, String> environment) {
        this.environment = environment;
    }

    @Override
    public void init(FilterConfig config) throws ServletException {
        super.init(withRedisUrl(config, environment));
    }

    /** @return {@code declared} itself, or with init-param {@code store} replaced by {@value #REDIS_URL} when set */
    static FilterConfig withRedisUrl(FilterConfig declared, Function<String, String> environment) {
        String redisUrl = environment.apply(REDIS_URL);
        return redisUrl == null || redisUrl.isBlank() ? declared : new WithStore(declared, redisUrl.trim());
    }

    /** The declared configuration with init-param {@code store} set to the Redis URL. */
    private record WithStore(FilterConfig declared, String store) implements FilterConfig {

        @Override
        public String getFilterName() {
            return declared.getFilterName();
        }

        @Override
        public ServletContext getServletContext() {
            return declared.getServletContext();
        }

        @Override
        public String getInitParameter(String name) {
            return name.equals("store") ? store : declared.getInitParameter(name);
        }

        @Override
        public Enumeration<String> getInitParameterNames() {
            Set<String> names = new LinkedHashSet<>(Collections.list(declared.getInitParameterNames()));
            names.add("store");
            return Collections.enumeration(names);
        }
    }
}
