package io.sluice.demo;

import java.nio.file.Files;
import java.nio.file.Path;
import org.eclipse.jetty.ee10.webapp.WebAppContext;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * The demo on an embedded Jetty 12 (ee10): the webapp of this module, with its {@code web.xml}, on
 * {@code http://localhost:8080} ({@code PORT} to change). {@code SLUICE_STORE=redis://localhost:6379} shares the
 * limits between instances. Started by {@code mvn -B -pl war-demo -am verify -Pdemo -DskipTests}.
 */
public final class DemoServer implements AutoCloseable {

    private final Server server;

    private DemoServer(Server server) {
        this.server = server;
    }

    /** Starts the demo on {@code port} (0: a free port) of {@code host}. */
    public static DemoServer start(String host, int port) throws Exception {
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost(host);
        connector.setPort(port);
        server.addConnector(connector);
        WebAppContext webapp = new WebAppContext();
        webapp.setContextPath("/");
        webapp.setBaseResourceAsPath(webappDirectory());
        webapp.setParentLoaderPriority(true);                  // the classes come from this module's class path
        server.setHandler(webapp);
        server.start();
        return new DemoServer(server);
    }

    public int port() {
        return ((ServerConnector) server.getConnectors()[0]).getLocalPort();
    }

    @Override
    public void close() throws Exception {
        server.stop();
    }

    private static Path webappDirectory() {
        for (Path candidate : new Path[] {Path.of("src/main/webapp"), Path.of("war-demo/src/main/webapp")}) {
            if (Files.isDirectory(candidate)) {
                return candidate.toAbsolutePath();
            }
        }
        throw new IllegalStateException("run from the project or war-demo directory: src/main/webapp not found");
    }

    public static void main(String[] args) throws Exception {
        String port = System.getenv().getOrDefault("PORT", "8080");
        try (DemoServer demo = start("0.0.0.0", Integer.parseInt(port))) {
            System.out.println("Sluice demo at http://localhost:" + demo.port() + "/ (store: "
                    + System.getenv().getOrDefault("SLUICE_STORE", "memory") + "); Ctrl-C stops it");
            demo.server.join();
        }
    }
}
