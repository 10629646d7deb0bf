package io.sluice.benchmarks;

import io.sluice.filter.RateLimitFilter;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
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
 */
public final class HttpServers {

    private HttpServers() {}

    public static void main(String[] args) throws Exception {
        Server plain = server(18081, false);
        Server limited = server(18082, true);
        plain.start();
        limited.start();
        System.out.println("plain on :18081, with Sluice on :18082");
        plain.join();
    }

    private static Server server(int port, boolean sluice) {
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(port);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler("/");
        if (sluice) {
            FilterHolder filter = new FilterHolder(new RateLimitFilter());
            filter.setInitParameter("limit", "1000000000/1s");
            filter.setInitParameter("headers", "both");
            filter.setAsyncSupported(true);
            context.addFilter(filter, "/*", EnumSet.of(DispatcherType.REQUEST));
        }
        context.addServlet(new ServletHolder(new Hello()), "/");
        server.setHandler(context);
        return server;
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
