package io.sluice.examples;

import static io.restassured.RestAssured.given;

import io.restassured.specification.RequestSpecification;
import java.nio.file.Path;
import org.eclipse.jetty.ee10.webapp.WebAppContext;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One example web application ({@code src/main/webapps/NAME}, with its own {@code WEB-INF/web.xml}) in embedded Jetty
 * 12 on a free loopback port; its classes come from this module's classpath. A JUnit extension: a test class declares
 * {@code @RegisterExtension static final ExampleServer app = ExampleServer.of("cdi");} and the server runs for the
 * class's tests.
 */
public final class ExampleServer implements BeforeAllCallback, AfterAllCallback {

    private final String name;
    private Server server;
    private int port;

    private ExampleServer(String name) {
        this.name = name;
    }

    /** @param name the folder under {@code src/main/webapps} */
    public static ExampleServer of(String name) {
        return new ExampleServer(name);
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        WebAppContext webapp = new WebAppContext();
        webapp.setContextPath("/");
        webapp.setWar(Path.of("src/main/webapps", name).toAbsolutePath().toString());
        webapp.setThrowUnavailableOnStartupException(true);
        server.setHandler(webapp);
        server.start();
        port = connector.getLocalPort();
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
    public void afterAll(ExtensionContext context) throws Exception {
        if (server != null) {
            server.stop();
        }
    }
}
