package io.sluice.demo;

import io.sluice.filter.RateLimitFilter;
import io.sluice.http.Parameters;
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
    protected Parameters parameters(Parameters declared) {
        return withRedisUrl(declared, environment);
    }

    /**
     * @return {@code declared} itself, or with the init-param {@code store} replaced by {@value #REDIS_URL} when set,
     *     named as that variable in the start-up description and in errors
     */
    static Parameters withRedisUrl(Parameters declared, Function<String, String> environment) {
        String redisUrl = environment.apply(REDIS_URL);
        return redisUrl == null || redisUrl.isBlank() ? declared
                : declared.withOwn("store", redisUrl.trim(), REDIS_URL + " (environment variable)");
    }
}
