package io.sluice.demo;

import java.nio.file.Files;
import java.nio.file.Path;
import org.eclipse.jetty.ee10.annotations.AnnotationConfiguration;
import org.eclipse.jetty.ee10.webapp.WebAppContext;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * The demo WAR in embedded Jetty 12 (ee10), at the root context on a loopback port. {@code mvn -pl war-demo -am
 * package -Pdemo} runs {@link #main} until Ctrl-C; the integration tests start one on a free port.
 *
 * <p>The packaged WAR ({@code target/sluice-demo-ee.war}) is deployed through its own {@code web.xml}, exactly as a
 * container deploys it: Jetty unpacks it into a temporary directory of its own, so two demos (two ports) run from one
 * build. The filter reads {@code SLUICE_*} environment variables and {@code sluice.*} system properties as it would
 * anywhere.
 *
 * <p>Like a Jakarta EE server, this Jetty brings JAX-RS: it scans the WAR for annotations and servlet container
 * initializers ({@link AnnotationConfiguration}, Jetty's {@code ee10-annotations} module), and Jersey is on its class
 * path (test scope), outside the WAR. So Jersey's initializer finds the WAR's {@code @ApplicationPath} application and
 * serves {@code /api/jaxrs/greeting}, limited by its {@code @RateLimit}, from the same {@code ee} WAR that WildFly,
 * Open Liberty, GlassFish and Payara get. There is no CDI container here (none is needed: Sluice runs without one).
 */
public final class DemoServer implements AutoCloseable {

    private final Server server;
    private final String contextPath;
    private final int port;

    private DemoServer(Path webapp, String contextPath, String host, int requestedPort) throws Exception {
        if (!Files.isRegularFile(webapp) && !Files.isRegularFile(webapp.resolve("WEB-INF/web.xml"))) {
            throw new IllegalArgumentException("neither a WAR nor an exploded WAR: " + webapp.toAbsolutePath()
                    + "; build it first: mvn -pl war-demo -am package");
        }
        server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost(host);
        connector.setPort(requestedPort);
        server.addConnector(connector);
        WebAppContext context = new WebAppContext();
        context.setContextPath(contextPath);
        context.setWar(webapp.toAbsolutePath().toString());
        context.addConfiguration(new AnnotationConfiguration());  // @ApplicationPath, servlet container initializers
        context.setThrowUnavailableOnStartupException(true);   // a bad configuration fails start-up, not requests
        server.setHandler(context);
        server.setStopAtShutdown(true);
        server.start();
        port = connector.getLocalPort();
        this.contextPath = contextPath.equals("/") ? "" : contextPath;
    }

    /**
     * @param webapp the WAR file, or an exploded WAR directory
     * @param port 0 for any free port
     */
    public static DemoServer start(Path webapp, int port) throws Exception {
        return start(webapp, "/", port);
    }

    /**
     * @param contextPath {@code /} or a path such as {@code /demo}
     */
    public static DemoServer start(Path webapp, String contextPath, int port) throws Exception {
        return new DemoServer(webapp, contextPath, "127.0.0.1", port);
    }

    /** @return the port it listens on, on 127.0.0.1 */
    public int port() {
        return port;
    }

    /** @return the context path: empty for the root, else such as {@code /demo} */
    public String contextPath() {
        return contextPath;
    }

    /** @return {@code http://localhost:PORT} and the context path, without a trailing slash */
    public String baseUri() {
        return "http://localhost:" + port + contextPath;
    }

    @Override
    public void close() throws Exception {
        server.stop();
    }

    /** {@code DemoServer WAR [PORT]}: runs until the JVM is stopped. */
    public static void main(String[] args) throws Exception {
        if (args.length < 1 || args.length > 2) {
            System.err.println("usage: DemoServer WAR [PORT]   (PORT defaults to 8080)");
            System.exit(2);
        }
        int port = args.length == 2 ? Integer.parseInt(args[1]) : 8080;
        DemoServer demo = start(Path.of(args[0]), port);
        System.out.println();
        System.out.println("Sluice demo: " + demo.baseUri() + "/   (playground; try " + demo.baseUri()
                + "/api/hello)   Ctrl-C stops it.");
        System.out.println();
        demo.server.join();
    }
}
