package io.sluice.examples;

import static io.restassured.RestAssured.given;

import io.restassured.specification.RequestSpecification;
import java.nio.file.Path;
import org.eclipse.jetty.ee10.webapp.WebAppContext;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * One example web application ({@code src/main/webapps/NAME}, with its own {@code WEB-INF/web.xml}) in embedded Jetty
 * 12 on a free loopback port; its classes come from this module's classpath.
 */
public final class ExampleServer implements AutoCloseable {

    private final Server server;
    private final int port;

    private ExampleServer(String name) throws Exception {
        server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        WebAppContext context = new WebAppContext();
        context.setContextPath("/");
        context.setWar(Path.of("src/main/webapps", name).toAbsolutePath().toString());
        context.setThrowUnavailableOnStartupException(true);
        server.setHandler(context);
        server.start();
        port = connector.getLocalPort();
    }

    /** @param name the folder under {@code src/main/webapps} */
    public static ExampleServer start(String name) throws Exception {
        return new ExampleServer(name);
    }

    /** @return a RESTAssured request to this application */
    public RequestSpecification client() {
        return given().baseUri("http://127.0.0.1").port(port);
    }

    /**
     * For checks of a {@code Retry-After} on the real clock: a wait counted from a first request made after
     * {@code startMillis} is at most this many seconds shorter than the policy's.
     *
     * @return the whole seconds since {@code startMillis}, rounded up
     */
    public static int secondsSince(long startMillis) {
        return (int) Math.ceil((System.currentTimeMillis() - startMillis) / 1000.0);
    }

    @Override
    public void close() throws Exception {
        server.stop();
    }
}
