package io.sluice.filter;

import static io.restassured.RestAssured.given;

import io.restassured.specification.RequestSpecification;
import io.sluice.core.Decision;
import io.sluice.http.FrontDoor;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.file.Path;
import java.security.Principal;
import java.util.EnumSet;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.ServerConnector;

/**
 * An embedded Jetty 12 on a free loopback port: an identity filter (principal from {@code X-Test-User}, attribute
 * {@code plan} from {@code X-Test-Plan}, {@code io.sluice.critical} from {@code X-Test-Critical}), then {@link RateLimitFilter} with the given init parameters on a manual
 * clock, then a servlet that answers 200 and reports the decision it sees in {@code X-Decision-*} headers (the
 * shadow delay in microseconds).
 * {@code /async} starts an async cycle that the test completes through {@link #held}; {@code /expiring} one that
 * times out (after {@value #EXPIRING_TIMEOUT_MILLIS} ms) and that nothing answers, so the container does (500).
 */
final class FilterServer implements AutoCloseable {

    /**
     * The async timeout of {@code /expiring}: {@value} ms. Not 1 ms: Jetty 12.1 schedules the timeout task, then records
     * it ({@code AsyncContextEvent.setTimeoutTask}), and a task that runs before it is recorded does nothing. Where the
     * request thread was held up for the timeout between the two (a loaded machine, a GC pause), the cycle never timed
     * out and the client waited forever: 24 runs in 300 of {@code CountByOutcomeIT}'s async test with 1 ms, on two
     * cores kept busy; none with 100 ms.
     */
    static final long EXPIRING_TIMEOUT_MILLIS = 100;

    final ManualClock clock = new ManualClock();
    final ManualScheduler scheduler = new ManualScheduler(clock);
    final RateLimitFilter filter;
    /** Async requests to {@code /async}, waiting for the test to complete them. */
    final BlockingQueue<AsyncContext> held = new LinkedBlockingQueue<>();
    private final Server server;
    private final int port;

    private FilterServer(Map<String, String> parameters, Path webRoot) throws Exception {
        this(parameters, webRoot, RateLimitFilter.MAX_QUEUED);
    }

    private FilterServer(Map<String, String> parameters, Path webRoot, int maxQueued) throws Exception {
        this(parameters, webRoot, maxQueued, false);
    }

    /** @param systemClock the filter on the system clock (and its own scheduler thread) instead of {@link #clock} */
    private FilterServer(Map<String, String> parameters, Path webRoot, int maxQueued, boolean systemClock)
            throws Exception {
        this(parameters, webRoot, maxQueued, systemClock, Map.of());
    }

    /** @param attributes servlet context attributes an application's listener sets before the filter starts */
    private FilterServer(Map<String, String> parameters, Path webRoot, int maxQueued, boolean systemClock,
            Map<String, Object> attributes) throws Exception {
        filter = systemClock ? new RateLimitFilter(io.sluice.core.time.TimeSource.system(), null, maxQueued)
                : new RateLimitFilter(clock, scheduler, maxQueued);
        server = new Server();
        HttpConfiguration http = new HttpConfiguration();
        http.setRequestHeaderSize(64 * 1024);      // long query strings, as Undertow (WildFly) accepts up to 1 MiB
        ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(http));
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler("/app");
        if (webRoot != null) {
            context.setBaseResourceAsPath(webRoot);
        }
        context.addEventListener(new jakarta.servlet.ServletContextListener() {
            @Override
            public void contextInitialized(jakarta.servlet.ServletContextEvent event) {
                attributes.forEach(event.getServletContext()::setAttribute);
            }
        });
        context.addFilter(new FilterHolder(new IdentityFilter()), "/*", EnumSet.of(DispatcherType.REQUEST));
        FilterHolder sluice = new FilterHolder(filter);
        sluice.setName("sluice");
        sluice.setInitParameters(parameters);
        sluice.setAsyncSupported(true);
        context.addFilter(sluice, "/*", EnumSet.of(DispatcherType.REQUEST));
        ServletHolder async = new ServletHolder(new AsyncServlet());
        async.setAsyncSupported(true);
        context.addServlet(async, "/async");
        ServletHolder expiring = new ServletHolder(new ExpiringServlet());
        expiring.setAsyncSupported(true);
        context.addServlet(expiring, "/expiring");
        context.addServlet(new ServletHolder(new FailingServlet()), "/fail");
        context.addServlet(new ServletHolder(new LoginServlet()), "/sign-in");
        ServletHolder admin = new ServletHolder(new AdminServlet());
        admin.setInitParameter("filter", "sluice");
        context.addServlet(admin, "/sluice-admin/*");
        context.addServlet(new ServletHolder(new HelloServlet()), "/");
        server.setHandler(context);
        server.start();
        port = connector.getLocalPort();
    }

    /** Starts Jetty with the filter configured by {@code parameters}. */
    static FilterServer start(Map<String, String> parameters) throws Exception {
        return new FilterServer(parameters, null);
    }

    /**
     * Starts Jetty with the filter on the system clock: time passes by itself (a store's circuit breaker cools down and
     * probes as in production), and {@link #clock} means nothing.
     */
    static FilterServer startOnSystemClock(Map<String, String> parameters) throws Exception {
        return new FilterServer(parameters, null, RateLimitFilter.MAX_QUEUED, true);
    }

    /**
     * Starts Jetty with the filter on the system clock, and {@code attributes} set in the servlet context by a
     * listener, as an application registers its queues ({@code io.sluice.queue.<name>}).
     */
    static FilterServer startWith(Map<String, String> parameters, Map<String, Object> attributes) throws Exception {
        return new FilterServer(parameters, null, RateLimitFilter.MAX_QUEUED, true, attributes);
    }

    /** Starts Jetty with a filter that holds at most {@code maxQueued} requests queued at once. */
    static FilterServer start(Map<String, String> parameters, int maxQueued) throws Exception {
        return new FilterServer(parameters, null, maxQueued);
    }

    /** Starts Jetty with {@code webRoot} as the WAR's root (so {@code /WEB-INF/...} resolves inside it). */
    static FilterServer start(Map<String, String> parameters, Path webRoot) throws Exception {
        return new FilterServer(parameters, webRoot);
    }

    /** @return a RESTAssured request to this server's {@code /app} context */
    RequestSpecification client() {
        return given().baseUri("http://127.0.0.1").port(port).basePath("/app");
    }

    /** @return a request that arrives through the trusted proxy at 127.0.0.1 from {@code clientIp} */
    RequestSpecification from(String clientIp) {
        return client().header("X-Forwarded-For", clientIp);
    }

    int port() {
        return port;
    }

    FrontDoor door() {
        return filter.frontDoor();
    }

    @Override
    public void close() throws Exception {
        server.stop();
    }

    /** Sets what an authentication filter or a tenant resolver would, from test headers. */
    static final class IdentityFilter implements Filter {
        @Override
        public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain) throws IOException, ServletException {
            HttpServletRequest request = (HttpServletRequest) req;
            String plan = request.getHeader("X-Test-Plan");
            if (plan != null) {
                request.setAttribute("plan", plan);
            }
            if (request.getHeader("X-Test-Critical") != null) {       // as the application marks a request critical
                request.setAttribute("io.sluice.critical", Boolean.TRUE);
            }
            String origin = request.getHeader("X-Test-Cors-Origin");     // as an application's CORS filter answers
            if (origin != null) {
                ((jakarta.servlet.http.HttpServletResponse) res).setHeader("Access-Control-Allow-Origin", origin);
            }
            String user = request.getHeader("X-Test-User");
            String role = request.getHeader("X-Test-Role");
            chain.doFilter(user == null ? request : new HttpServletRequestWrapper(request) {
                @Override
                public Principal getUserPrincipal() {
                    return () -> user;
                }

                @Override
                public boolean isUserInRole(String r) {
                    return r.equals(role);
                }
            }, res);
        }
    }

    /**
     * Answers 200 "hello" and shows the decision attribute. Reads the request's body first, as an application that takes
     * {@code POST}s does: Jetty closes a connection whose body was left unread when it arrives after the response, and
     * a client that sent its next request on it gets no answer.
     */
    static final class HelloServlet extends HttpServlet {
        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
            request.getInputStream().readAllBytes();
            Decision d = (Decision) request.getAttribute(FrontDoor.DECISION_ATTRIBUTE);
            response.setHeader("X-Decision-Allowed", String.valueOf(d.allowed()));
            response.setHeader("X-Decision-Binding", d.binding() == null ? "none" : d.binding().rule().name());
            response.setHeader("X-Decision-Shadow-Denied", String.valueOf(d.shadowDenied()));
            response.setHeader("X-Decision-Shadow-Delay", String.valueOf(d.shadowDelayMicros()));
            response.setContentType("text/plain");
            response.setContentLength(5);
            response.getWriter().write("hello");
        }
    }

    /** 200 when header {@code X-Password} is "secret", else 401: a login form's outcomes. */
    static final class LoginServlet extends HttpServlet {
        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response) {
            response.setStatus("secret".equals(request.getHeader("X-Password")) ? 200 : 401);
        }
    }

    /** Throws, as a failing application does. */
    static final class FailingServlet extends HttpServlet {
        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response) {
            throw new IllegalStateException("the application failed");
        }
    }

    /** Starts an async cycle and leaves it to the test. */
    final class AsyncServlet extends HttpServlet {
        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response) {
            AsyncContext async = request.startAsync();
            async.setTimeout(0);
            held.add(async);
        }
    }

    /** Starts an async cycle that times out, with no listener to answer it. */
    static final class ExpiringServlet extends HttpServlet {
        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response) {
            request.startAsync().setTimeout(EXPIRING_TIMEOUT_MILLIS);
        }
    }
}
