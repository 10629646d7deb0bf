package io.sluice.http.internal;

import io.sluice.http.RulesSource;
import io.sluice.http.SluiceConfig;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The web applications running Sluice in this JVM, each with how it reads {@code rules} ({@code /WEB-INF/...} inside
 * its WAR, else a file path), so that a front door without a {@code ServletContext} of its own (the JAX-RS filter, the
 * CDI engine) reads the rules file from its WAR as the servlet filter does. {@code sluice-jaxrs}'s
 * {@code ServletContainerInitializer} registers each web application when it starts and removes it when it stops.
 *
 * <p>A web application is found by the class loader of the thread that asks (its context class loader, or one of that
 * loader's parents). A container gives each WAR a class loader of its own and starts the WAR's JAX-RS application and
 * CDI beans with it as the context class loader. Two web applications registered with the same class loader (embedded
 * contexts that share one) are told apart by neither: there {@code rules} is a file path.
 */
public final class WebApps {

    private static final System.Logger LOG = System.getLogger(WebApps.class.getName());
    /** The lookup of a class loader that two web applications share: neither's WAR, file paths only. */
    private static final Function<String, RulesSource> AMBIGUOUS = SluiceConfig.files();
    private static final Map<ClassLoader, Function<String, RulesSource>> RULES = new ConcurrentHashMap<>();

    private WebApps() {}

    /**
     * @param loader the web application's own class loader ({@code ServletContext.getClassLoader()})
     * @param rulesSources turns a value of {@code rules} into a source inside that web application, null when none
     */
    public static void register(ClassLoader loader, Function<String, RulesSource> rulesSources) {
        Function<String, RulesSource> before = RULES.putIfAbsent(loader, rulesSources);
        if (before != null && before != rulesSources) {
            RULES.put(loader, AMBIGUOUS);
            LOG.log(System.Logger.Level.WARNING, "two web applications share the class loader " + loader
                    + "; there the JAX-RS filter and the CDI engine read rules only as a file path, not from a WAR");
        }
    }

    /** Forgets the web application of {@code loader}, if it is still registered with {@code rulesSources}. */
    public static void remove(ClassLoader loader, Function<String, RulesSource> rulesSources) {
        RULES.remove(loader, rulesSources);
    }

    /**
     * @return how the web application of the calling thread reads {@code rules}; {@link SluiceConfig#files()} outside
     *     any registered web application
     */
    public static Function<String, RulesSource> rulesSources() {
        for (ClassLoader l = Thread.currentThread().getContextClassLoader(); l != null; l = l.getParent()) {
            Function<String, RulesSource> sources = RULES.get(l);
            if (sources != null) {
                return sources;
            }
        }
        return SluiceConfig.files();
    }
}
