package io.sluice.http.spi;

import io.sluice.http.ParameterSource;
import io.sluice.http.Parameters;
import java.util.ArrayList;
import java.lang.System.Logger.Level;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.function.Function;

/**
 * The {@link IntegrationProvider}s a front door finds at start-up: with {@link ServiceLoader}, through the thread's
 * context class loader (in a servlet container, the web application's, which sees {@code WEB-INF/lib}) and through
 * Sluice's own (where Sluice is installed in the server's libraries), each provider once. A provider that cannot be
 * used is logged and skipped, such as one of another copy of Sluice that a parent class loader sees (the server's
 * libraries, a test's class path), whose {@code IntegrationProvider} is another class than this one.
 */
public final class Integrations {

    private static final System.Logger LOG = System.getLogger(Integrations.class.getName());
    /** The most unusable providers one class loader's services are read past: {@value}. */
    private static final int MAX_ERRORS = 16;

    private final List<IntegrationProvider> providers;

    private Integrations(List<IntegrationProvider> providers) {
        this.providers = List.copyOf(providers);
    }

    /** @return the providers the thread's context class loader and Sluice's class loader see */
    public static Integrations find() {
        List<ClassLoader> loaders = new ArrayList<>();
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        if (context != null) {
            loaders.add(context);
        }
        loaders.add(Integrations.class.getClassLoader());
        List<IntegrationProvider> found = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (ClassLoader loader : loaders) {
            load(loader, found, seen);
        }
        return new Integrations(found);
    }

    /** Adds to {@code found} each provider {@code loader}'s services name whose class is not {@code seen} yet. */
    private static void load(ClassLoader loader, List<IntegrationProvider> found, Set<String> seen) {
        Iterator<IntegrationProvider> providers = ServiceLoader.load(IntegrationProvider.class, loader).iterator();
        int errors = 0;
        while (errors < MAX_ERRORS) {
            try {
                if (!providers.hasNext()) {
                    return;
                }
                IntegrationProvider p = providers.next();
                if (seen.add(p.getClass().getName())) {
                    found.add(p);
                }
            } catch (ServiceConfigurationError e) {      // the iterator goes on with the next name
                errors++;
                LOG.log(Level.WARNING, "Sluice: a runtime integration is ignored: " + e.getMessage());
            }
        }
    }

    /** @return the given providers, in order (tests, and an application that wires its own) */
    public static Integrations of(List<IntegrationProvider> providers) {
        return new Integrations(providers);
    }

    /** @return the providers found, in order */
    public List<IntegrationProvider> providers() {
        return providers;
    }

    /** @return the first provider's integration that is not null, or null when no runtime provides one */
    public RuntimeIntegration integration() {
        for (IntegrationProvider p : providers) {
            RuntimeIntegration integration = p.integration();
            if (integration != null) {
                return integration;
            }
        }
        return null;
    }

    /** @return every provider's parameter sources, in order */
    public List<ParameterSource> parameterSources() {
        List<ParameterSource> sources = new ArrayList<>();
        providers.forEach(p -> sources.addAll(p.parameterSources()));
        return sources;
    }

    /** @return {@code parameters} with each of {@link #parameterSources()} layered in order */
    public Parameters addSources(Parameters parameters) {
        Parameters with = parameters;
        for (ParameterSource source : parameterSources()) {
            with = with.withSource(source);
        }
        return with;
    }

    /**
     * @return a lookup of a property in the runtime's sources (the first that sets it; null when none does), for
     *     settings outside the parameters such as the {@code @RateLimit} keys in MicroProfile Fault Tolerance's style
     */
    public Function<String, String> lookup() {
        List<ParameterSource> sources = parameterSources();
        return property -> {
            for (ParameterSource source : sources) {
                String value = source.value(property);
                if (value != null) {
                    return value;
                }
            }
            return null;
        };
    }
}
