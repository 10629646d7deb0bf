package io.sluice.client;

import io.sluice.filter.RateLimitFilter;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.util.EnumSet;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * The remote API of the tests: an embedded Jetty 12 on a free loopback port. {@code /api/*} is limited by Sluice's own
 * servlet filter ({@link RateLimitFilter}, on the system clock, every caller one key), so its answers carry real
 * {@code RateLimit}, {@code RateLimit-Policy}, {@code X-RateLimit-*} and {@code Retry-After} fields; the server counts
 * what reached it and what it admitted. {@code /scripted} answers what the test queued ({@link #script}), then 200: a
 * remote that lies, or that a test needs to answer 429 and then admit.
 */
final class RemoteApi implements AutoCloseable {

    /** One scripted answer. */
    record Answer(int status, Map<String, String> headers) {}

    final AtomicInteger received = new AtomicInteger();
    final AtomicInteger admitted = new AtomicInteger();
    final AtomicInteger scriptedCalls = new AtomicInteger();
    final ConcurrentLinkedQueue<Answer> script = new ConcurrentLinkedQueue<>();
    private final Server server;
    private final int port;

    /** @param limit the remote's limit for everyone, in the limit notation */
    RemoteApi(String limit) throws Exception {
        server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler("/");
        Filter counting = (request, response, chain) -> {
            received.incrementAndGet();
            chain.doFilter(request, response);
        };
        context.addFilter(new FilterHolder(counting), "/api/*", EnumSet.of(DispatcherType.REQUEST));
        FilterHolder sluice = new FilterHolder(new RateLimitFilter());
        sluice.setInitParameters(Map.of("limit", limit, "name", "remote", "key", "global"));
        context.addFilter(sluice, "/api/*", EnumSet.of(DispatcherType.REQUEST));
        context.addServlet(new ServletHolder(new HttpServlet() {
            @Override
            protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                admitted.incrementAndGet();
                resp.setContentType("text/plain");
                resp.getWriter().write("ok");
            }
        }), "/api/*");
        context.addServlet(new ServletHolder(new HttpServlet() {
            @Override
            protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                scriptedCalls.incrementAndGet();
                Answer a = script.poll();
                int status = a == null ? 200 : a.status();
                resp.setStatus(status);
                if (a != null) {
                    a.headers().forEach(resp::setHeader);
                }
                resp.setContentType("text/plain");
                resp.getWriter().write(status == 200 ? "ok" : "slow down");
            }
        }), "/scripted");
        server.setHandler(context);
        server.start();
        port = connector.getLocalPort();
    }

    /** @return the URI of {@code path} on this server */
    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    /** @return what the server denied (429) */
    int denied() {
        return received.get() - admitted.get();
    }

    @Override
    public void close() throws Exception {
        server.stop();
    }
}
