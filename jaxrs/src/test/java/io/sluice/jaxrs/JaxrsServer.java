package io.sluice.jaxrs;

import static io.restassured.RestAssured.given;

import io.restassured.specification.RequestSpecification;
import io.sluice.http.SluiceConfig;
import io.sluice.filter.Filters;
import io.sluice.filter.RateLimitFilter;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.ws.rs.core.Application;
import java.io.IOException;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * An embedded Jetty 12 on a free loopback port, context {@code /app}: a JAX-RS implementation at {@code /api/*}
 * serving {@link Resources} with a {@link RateLimitFeature} on a manual clock; optionally the servlet filter (same
 * clock) in front of everything, and a plain servlet at {@code /plain/*} that only the servlet filter limits.
 */
final class JaxrsServer implements AutoCloseable {

    /** A JAX-RS implementation, deployed as a servlet. */
    interface Implementation {
        ServletHolder servlet(Application application, ServletContextHandler context) throws Exception;
    }

    /** What a test wants running. */
    static final class Setup {
        final Map<String, Object> properties = new HashMap<>();
        Map<String, String> servletFilter;
        /** The most requests the servlet filter holds queued; negative: its default, and not async-supported. */
        int servletFilterMaxQueued = -1;
        SluiceConfig config;
        boolean scanFeature;
        final Set<Class<?>> classes = new HashSet<>(Resources.ALL);
        java.util.function.Consumer<ServletContextHandler> beforeStart = context -> {};

        /** A JAX-RS property: {@code sluice.limit} and so on. */
        Setup property(String name, Object value) {
            properties.put(name, value);
            return this;
        }

        /** Installs the servlet filter with these init parameters in front of everything. */
        Setup servletFilter(Map<String, String> parameters) {
            this.servletFilter = parameters;
            return this;
        }

        /** Makes the servlet filter async-supported (it queues), holding at most {@code maxQueued} requests queued. */
        Setup servletFilterQueue(int maxQueued) {
            this.servletFilterMaxQueued = maxQueued;
            return this;
        }

        /** Registers the feature by class (as scanning would), instead of an instance on the manual clock. */
        Setup featureByClass() {
            this.scanFeature = true;
            return this;
        }
    }

    final ManualClock clock = new ManualClock();
    final RateLimitFeature feature;
    private final Server server;
    private final int port;

    JaxrsServer(Implementation implementation, Setup setup) throws Exception {
        feature = new RateLimitFeature(setup.config, clock);
        server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler("/app");
        if (setup.servletFilter != null) {
            RateLimitFilter filter = setup.servletFilterMaxQueued < 0 ? Filters.onClock(clock)
                    : Filters.onClock(clock, setup.servletFilterMaxQueued);
            FilterHolder holder = new FilterHolder(filter);
            holder.setName("sluice");
            holder.setAsyncSupported(setup.servletFilterMaxQueued >= 0);
            holder.setInitParameters(setup.servletFilter);
            context.addFilter(holder, "/*", EnumSet.of(DispatcherType.REQUEST));
        }
        Set<Class<?>> classes = new HashSet<>(setup.classes);
        Set<Object> singletons = new HashSet<>();
        if (setup.scanFeature) {
            classes.add(RateLimitFeature.class);
        } else {
            singletons.add(feature);
        }
        Application application = new Application() {
            @Override
            public Set<Class<?>> getClasses() {
                return classes;
            }

            @Override
            public Set<Object> getSingletons() {
                return singletons;
            }

            @Override
            public Map<String, Object> getProperties() {
                return setup.properties;
            }
        };
        context.addServlet(implementation.servlet(application, context), "/api/*");
        context.addServlet(new ServletHolder(new Plain()), "/plain/*");
        setup.beforeStart.accept(context);
        server.setHandler(context);
        try {
            server.start();
        } catch (Exception e) {
            server.stop();                      // a deployment that fails leaves no server running
            feature.close();
            throw e;
        }
        port = connector.getLocalPort();
    }

    /** @return a RESTAssured request to this server's {@code /app} context */
    RequestSpecification client() {
        return given().baseUri("http://127.0.0.1").port(port).basePath("/app");
    }

    /** @return the port the server listens on (for raw socket clients) */
    int port() {
        return port;
    }

    @Override
    public void close() throws Exception {
        server.stop();
        feature.close();
    }

    /** Answers 200 "hello", as a servlet that JAX-RS does not see. */
    static final class Plain extends HttpServlet {
        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
            response.setContentType("text/plain");
            response.getWriter().write("hello");
        }
    }
}
