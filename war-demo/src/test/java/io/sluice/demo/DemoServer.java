package io.sluice.demo;

import java.io.PrintStream;
import java.net.BindException;
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

    /** The port of {@link #main} when none is given, as of {@code -Pdemo} without {@code -Ddemo.port}: {@value}. */
    static final int DEFAULT_PORT = 8080;

    private final Server server;
    private final String contextPath;
    private final int port;

    private DemoServer(Path webapp, String contextPath, String host, int requestedPort) throws Exception {
        String missing = missingWar(webapp);
        if (missing != null) {
            throw new IllegalArgumentException(missing);
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
        try {
            server.start();
        } catch (Exception | Error e) {
            try {
                server.stop();      // what did start (its thread pool) must not keep the JVM alive
            } catch (Exception | Error also) {
                e.addSuppressed(also);
            }
            throw e;
        }
        port = connector.getLocalPort();
        this.contextPath = contextPath.equals("/") ? "" : contextPath;
    }

    /** @return why {@code webapp} is neither a WAR nor an exploded WAR, or null when it is one */
    private static String missingWar(Path webapp) {
        if (Files.isRegularFile(webapp) || Files.isRegularFile(webapp.resolve("WEB-INF/web.xml"))) {
            return null;
        }
        return "neither a WAR nor an exploded WAR: " + webapp.toAbsolutePath()
                + "; build it first: mvn -pl war-demo -am package";
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

    /**
     * {@code DemoServer WAR [PORT]}: runs until the JVM is stopped. When it cannot start (the port is taken, the WAR is
     * missing) it says why in one line and exits with status 1 (2 for bad arguments), without a stack trace.
     */
    public static void main(String[] args) throws Exception {
        int status = run(withWarBeside(args, runnerJar()), System.out, System.err, demo -> demo.server.join());
        if (status != 0) {
            System.exit(status);
        }
    }

    /** The WAR that {@code sluice-demo-ee-runner.jar} runs when none is given: {@value}, beside the jar. */
    static final String RUNNER_WAR = "sluice-demo-ee.war";

    /**
     * @param runner the jar this class was loaded from ({@code java -jar war-demo/target/sluice-demo-ee-runner.jar});
     *     null when it was not (Maven's {@code exec:java}, tests)
     * @return {@code args}, or, run from the jar without a WAR ({@code []} or {@code [PORT]}), with {@value #RUNNER_WAR}
     *     beside the jar first
     */
    static String[] withWarBeside(String[] args, Path runner) {
        if (runner == null || args.length > 1 || (args.length == 1 && !args[0].trim().matches("\\d+"))) {
            return args;
        }
        String war = runner.toAbsolutePath().resolveSibling(RUNNER_WAR).toString();
        return args.length == 0 ? new String[] {war} : new String[] {war, args[0]};
    }

    /** @return the jar this class was loaded from; null when it was loaded from a directory */
    private static Path runnerJar() {
        try {
            Path from = Path.of(DemoServer.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return Files.isRegularFile(from) ? from : null;
        } catch (Exception e) {
            return null;
        }
    }

    /** What to do with the demo once it is started (the launcher: wait until the JVM is stopped). */
    @FunctionalInterface
    interface WhileRunning {
        void accept(DemoServer demo) throws Exception;
    }

    /**
     * Starts the demo of {@code args} ({@code WAR [PORT]}), runs {@code whileRunning}, and stops it.
     *
     * @return the exit status: 0 once {@code whileRunning} returned; 1 when the demo could not start, 2 for bad
     *     arguments; either said on {@code err} in one line
     */
    static int run(String[] args, PrintStream out, PrintStream err, WhileRunning whileRunning) throws Exception {
        if (args.length < 1 || args.length > 2) {
            err.println("usage: DemoServer WAR [PORT]   (PORT defaults to " + DEFAULT_PORT + "), or java -jar "
                    + "sluice-demo-ee-runner.jar [WAR] [PORT]");
            return 2;
        }
        int port;
        try {
            port = args.length == 2 ? Integer.parseInt(args[1].trim()) : DEFAULT_PORT;
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (port < 0 || port > 65_535) {
            err.println("Sluice demo: the port must be a number from 0 to 65535, got \"" + args[1] + "\"; choose it with "
                    + "-Ddemo.port, such as: mvn -pl war-demo -am package -Pdemo -Ddemo.port=" + (DEFAULT_PORT + 1));
            return 2;
        }
        String missing = missingWar(Path.of(args[0]));
        if (missing != null) {
            err.println("Sluice demo: " + missing);
            return 1;
        }
        DemoServer demo;
        try {
            demo = start(Path.of(args[0]), port);
        } catch (Exception e) {
            BindException bind = bindFailure(e);
            if (bind == null) {
                throw e;            // anything else is unexpected: its stack trace is the best account of it
            }
            err.println(cannotListen(port, bind));
            return 1;
        }
        try {
            out.println();
            out.println("Sluice demo: " + demo.baseUri() + "/   (playground; try " + demo.baseUri()
                    + "/api/hello)   Ctrl-C stops it.");
            out.println();
            whileRunning.accept(demo);
        } finally {
            demo.close();
        }
        return 0;
    }

    /**
     * @return one line: the port is taken (or cannot be listened on, with the system's reason), and how to choose
     *     another: {@code -Ddemo.port} with an example one above it
     */
    static String cannotListen(int port, BindException e) {
        String reason = String.valueOf(e.getMessage());
        String what = reason.toLowerCase(java.util.Locale.ROOT).contains("in use")
                ? "port " + port + " is taken (" + reason + ")"
                : "cannot listen on port " + port + " (" + reason + ")";
        int other = port >= 1_024 && port < 65_535 ? port + 1 : DEFAULT_PORT + 1;
        return "Sluice demo: " + what + ". Choose another port with -Ddemo.port, such as: mvn -pl war-demo -am "
                + "package -Pdemo -Ddemo.port=" + other;
    }

    /** @return the {@link BindException} that {@code e} is or was caused by, or null */
    private static BindException bindFailure(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof BindException bind) {
                return bind;
            }
        }
        return null;
    }
}
