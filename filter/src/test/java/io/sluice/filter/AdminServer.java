package io.sluice.filter;

import static io.restassured.RestAssured.given;

import io.restassured.specification.RequestSpecification;
import io.sluice.http.FrontDoor;
import jakarta.servlet.DispatcherType;
import java.util.EnumSet;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * An embedded Jetty 12 serving only {@link AdminServlet} (at {@code /app/sluice-admin/*}, behind
 * {@link FilterServer.IdentityFilter}) for a front door the test opened itself, over a store of its choosing, as the
 * filter would publish it: a node whose shared settings the test shares with another node, or whose store fails.
 */
final class AdminServer implements AutoCloseable {

    private final Server server = new Server();
    private final int port;

    AdminServer(FrontDoor door) throws Exception {
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler("/app");
        context.addFilter(new FilterHolder(new FilterServer.IdentityFilter()), "/*", EnumSet.of(DispatcherType.REQUEST));
        context.addServlet(new ServletHolder(new AdminServlet()), "/sluice-admin/*");
        context.setAttribute(RateLimitFilter.contextAttribute("sluice"), door);     // as the filter does
        server.setHandler(context);
        server.start();
        port = connector.getLocalPort();
    }

    /** @return a request of {@code user}, in role sluice-admin */
    RequestSpecification as(String user) {
        return given().baseUri("http://127.0.0.1").port(port).basePath("/app").header("X-Test-User", user)
                .header("X-Test-Role", "sluice-admin");
    }

    @Override
    public void close() throws Exception {
        server.stop();
    }
}
