package io.sluice.benchmarks;

import io.sluice.filter.RateLimitFilter;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * The servers of the HTTP throughput benchmark ({@code benchmarks/http-throughput.sh}): one embedded Jetty 12 with two
 * connectors' worth of contexts — a trivial servlet on {@code :18081} without Sluice, and the same servlet behind
 * {@link RateLimitFilter} (memory store, a limit no load reaches, both header styles) on {@code :18082} — in one JVM,
 * so both share the same JIT, heap and threads. The load comes from {@code wrk}, a separate process.
 *
 * <p>For the breakdown only, {@code :18083} puts the same servlet behind {@link Floor}, a filter that does what any
 * rate limiter answering like Sluice must do and nothing else: it sets one request attribute and adds the five
 * rate-limit headers, of Sluice's names and lengths, with fixed text. The gap between {@code :18081} and
 * {@code :18083} is the cost of the headers and the attribute in the container and the client; the gap between
 * {@code :18083} and {@code :18082} is Sluice's own.
 *
 * <p>{@code :18084} is Sluice again with {@code headers=ietf}: only the standard fields ({@code RateLimit-Policy},
 * {@code RateLimit}), not the {@code X-RateLimit-*} ones as well; {@code :18085} is its floor, {@link Floor} with
 * those two headers only.
 */
public final class HttpServers {

    private HttpServers() {}

    public static void main(String[] args) throws Exception {
        start().get(0).join();
    }

    /** @return the five servers, started */
    static List<Server> start() throws Exception {
        List<Server> servers = List.of(server(18081, null, null), server(18082, new RateLimitFilter(), "both"),
                server(18083, new Floor(true), null), server(18084, new RateLimitFilter(), "ietf"),
                server(18085, new Floor(false), null));
        for (Server server : servers) {
            server.start();
        }
        System.out.println("plain on :18081, with Sluice on :18082, with the floor filter on :18083, "
                + "with Sluice (headers=ietf) on :18084, with the floor filter (ietf headers) on :18085");
        return servers;
    }

    /**
     * @param filter the filter in front of the servlet, or null for none
     * @param headers Sluice's {@code headers} parameter
     */
    private static Server server(int port, Filter filter, String headers) {
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(port);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler("/");
        if (filter != null) {
            FilterHolder holder = new FilterHolder(filter);
            holder.setInitParameter("limit", "1000000000/1s");
            if (headers != null) {
                holder.setInitParameter("headers", headers);
            }
            holder.setAsyncSupported(true);
            context.addFilter(holder, "/*", EnumSet.of(DispatcherType.REQUEST));
        }
        context.addServlet(new ServletHolder(new Hello()), "/");
        server.setHandler(context);
        return server;
    }

    /**
     * The floor of the breakdown: one request attribute and the headers Sluice sends here, with the same names and
     * value lengths (the remaining count changes per request, as Sluice's does), and nothing else: the five of
     * {@code headers=both}, or the two standard ones of {@code headers=ietf}.
     */
    static final class Floor implements Filter {
        private final AtomicLong remaining = new AtomicLong(999_999_999);
        private final boolean legacyHeaders;

        /** @param legacyHeaders whether to add the three {@code X-RateLimit-*} headers after the two standard ones */
        Floor(boolean legacyHeaders) {
            this.legacyHeaders = legacyHeaders;
        }

        @Override
        public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
                throws IOException, ServletException {
            HttpServletRequest request = (HttpServletRequest) req;
            HttpServletResponse response = (HttpServletResponse) res;
            request.setAttribute(io.sluice.http.FrontDoor.DECISION_ATTRIBUTE, this);
            String r = Long.toString(900_000_000 + (remaining.getAndDecrement() & 0xffffff));
            response.addHeader("RateLimit-Policy", "\"per-ip\";q=1000000000;w=1");
            response.addHeader("RateLimit", "\"per-ip\";r=" + r + ";t=1");
            if (legacyHeaders) {
                response.addHeader("X-RateLimit-Limit", "1000000000");
                response.addHeader("X-RateLimit-Remaining", r);
                response.addHeader("X-RateLimit-Reset", "1763930000");
            }
            chain.doFilter(req, res);
        }
    }

    /** 200 text/plain "hello". */
    static final class Hello extends HttpServlet {
        private static final byte[] BODY = "hello".getBytes(StandardCharsets.US_ASCII);

        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
            response.setContentType("text/plain");
            response.setContentLength(BODY.length);
            response.getOutputStream().write(BODY);
        }
    }
}
