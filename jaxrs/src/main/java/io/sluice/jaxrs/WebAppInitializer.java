package io.sluice.jaxrs;

import io.sluice.http.RulesSource;
import io.sluice.http.internal.WebApps;
import io.sluice.jaxrs.internal.RequestEnd;
import jakarta.servlet.ServletContainerInitializer;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import java.util.Set;
import java.util.function.Function;

/**
 * Lets the JAX-RS filter (and the CDI engine) read {@code rules=/WEB-INF/...} from the WAR, as the servlet filter does:
 * registers the starting web application with {@link WebApps}, and removes it when the application stops. Adds the
 * {@code RequestEnd} listener, which releases, when the servlet request ends, the concurrency leases of a JAX-RS
 * request whose response Sluice's filters did not see to its end. A container runs it at start-up, before any servlet
 * (so before the JAX-RS application), because {@code sluice-jaxrs} lists it in
 * {@code META-INF/services/jakarta.servlet.ServletContainerInitializer}; an embedded server that does not discover
 * initializers can add {@code new WebAppInitializer()} to its context (which then needs a class loader of its own).
 */
public final class WebAppInitializer implements ServletContainerInitializer {

    @Override
    public void onStartup(Set<Class<?>> classes, ServletContext context) {
        context.addListener(new RequestEnd());         // whether or not the context has a class loader of its own
        ClassLoader loader = context.getClassLoader();
        if (loader == null) {
            return;         // an embedded context without a class loader of its own: no way to tell its threads
        }
        Function<String, RulesSource> rules = value -> RulesSource.inWebApp(context::getRealPath, context::getResource,
                value);
        WebApps.register(loader, rules);
        context.addListener(new ServletContextListener() {
            @Override
            public void contextDestroyed(ServletContextEvent event) {
                WebApps.remove(loader, rules);
            }
        });
    }
}
