package io.sluice.demo;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.testing.Await;
import io.sluice.core.testing.RedisProcess;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.ref.WeakReference;
import java.lang.runtime.ObjectMethods;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Enumeration;
import java.util.List;
import java.util.function.IntFunction;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The servlet filter deployed and undeployed {@value #DEPLOYS} times, as a container does with a WAR: each time in a
 * web application of its own, its classes loaded from the packaged demo WAR's {@code WEB-INF/lib} by a class loader of its
 * own, whose parent sees the JDK, the servlet API and the container (Jetty) and nothing else; in memory mode, on a live
 * Redis, and on a dead one (a port nothing listens on). Each time the filter answers (limits on memory and Redis, the
 * failure mode on the dead Redis), then the web application is stopped, and at that moment, as Tomcat checks on
 * undeploy, no {@code sluice-*} thread of it is running. After the loop no {@code sluice-*} thread is left, and every
 * web application's class loader has been collected: nothing of Sluice holds on to an undeployed application.
 *
 * <p>One thing does, in the JDK itself, whatever the application: on Java 17 a {@code MethodHandle} keeps its last
 * {@code asType} adaptation (JDK-8078641, fixed in Java 18), so the handles behind every record's {@code equals},
 * {@code hashCode} and {@code toString} ({@link ObjectMethods}) keep the last record class they were adapted to, and
 * with it its class loader, until another record's take its place. A record of the test's own takes it
 * ({@link #unpinLastRecord()}), as the next application's records would in a container.
 */
class RedeployIT {

    private static final int DEPLOYS = 20;
    private static final Duration WITHIN = Duration.ofSeconds(30);

    /** The packaged WAR's libraries, extracted once. */
    private static URL[] webInfLib;
    private static Path extracted;

    @BeforeAll
    static void extractLibraries() throws IOException {
        Path war = Path.of(System.getProperty("demo.webapp", "target/sluice-demo-ee.war"));
        extracted = Files.createTempDirectory("sluice-redeploy");
        List<URL> jars = new ArrayList<>();
        try (ZipFile zip = new ZipFile(war.toFile())) {
            for (ZipEntry e : Collections.list(zip.entries())) {
                if (e.getName().startsWith("WEB-INF/lib/") && e.getName().endsWith(".jar")) {
                    Path jar = extracted.resolve(e.getName().substring("WEB-INF/lib/".length()));
                    try (InputStream in = zip.getInputStream(e)) {
                        Files.copy(in, jar, StandardCopyOption.REPLACE_EXISTING);
                    }
                    jars.add(jar.toUri().toURL());
                }
            }
        }
        assertThat(jars).as("the WAR's libraries").isNotEmpty();
        webInfLib = jars.toArray(URL[]::new);
    }

    @AfterAll
    static void deleteLibraries() throws IOException {
        try (var files = Files.list(extracted)) {
            for (Path p : files.toList()) {
                Files.delete(p);
            }
        }
        Files.delete(extracted);
    }

    @Test
    void inMemoryMode() throws Throwable {
        redeploy(i -> "memory", List.of(200, 200, 429));
    }

    @Test
    void onALiveRedis() throws Throwable {
        try (RedisProcess redis = RedisProcess.start()) {
            // a prefix per deployment: each starts with a fresh count, as a new deployment of another application
            redeploy(i -> redis.url() + "?timeout=2000ms&prefix=redeploy-" + i, List.of(200, 200, 429));
        }
    }

    @Test
    void onADeadRedis() throws Throwable {
        int nothingListens = RedisProcess.freePort();
        redeploy(i -> "redis://127.0.0.1:" + nothingListens, List.of(200, 200, 200));       // on-store-failure: allow
    }

    /**
     * Deploys, asks, undeploys {@value #DEPLOYS} times; then waits (bounded) until no {@code sluice-*} thread is left
     * and every class loader was collected.
     */
    private static void redeploy(IntFunction<String> store, List<Integer> statuses) throws Throwable {
        List<WeakReference<ClassLoader>> loaders = new ArrayList<>();
        for (int i = 0; i < DEPLOYS; i++) {
            loaders.add(deployAskUndeploy(store.apply(i), statuses));
        }
        Await.until("no sluice-* thread left", WITHIN, () -> sluiceThreads(null).isEmpty());
        unpinLastRecord();
        Await.until("the web applications' class loaders collected", WITHIN, () -> {
            System.gc();
            return loaders.stream().allMatch(l -> l.refersTo(null));
        });
    }

    /** @return the web application's class loader, weakly held */
    private static WeakReference<ClassLoader> deployAskUndeploy(String store, List<Integer> statuses)
            throws Exception {
        URLClassLoader webapp = new URLClassLoader("webapp", webInfLib, new Container());
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler("/");
        context.setClassLoader(webapp);
        FilterHolder filter = new FilterHolder(webapp.loadClass("io.sluice.filter.RateLimitFilter")
                .asSubclass(Filter.class));
        filter.setName("sluice");
        filter.setAsyncSupported(true);
        filter.setInitParameter("limit", "2/1h");
        filter.setInitParameter("store", store);
        context.addFilter(filter, "/*", EnumSet.of(DispatcherType.REQUEST));
        context.addServlet(new ServletHolder(new Hello()), "/*");
        server.setHandler(context);
        server.start();
        try {
            int port = connector.getLocalPort();
            List<Integer> seen = new ArrayList<>();
            for (int i = 0; i < statuses.size(); i++) {
                seen.add(given().baseUri("http://127.0.0.1:" + port).get("/hello").statusCode());
            }
            assertThat(seen).as("the filter's answers on %s", store).isEqualTo(statuses);
        } finally {
            server.stop();          // the filter destroyed: undeployed
        }
        assertThat(sluiceThreads(webapp)).as("sluice-* threads of the web application once it is stopped").isEmpty();
        webapp.close();
        return new WeakReference<>(webapp);
    }

    /** A record of the test's own, whose methods' handles take the place of the last web application's. */
    private record Unpin(String text, int number) {}

    /** See the class's comment: the JDK's handles of records' methods adapted to {@link Unpin}, not to a web app's. */
    private static void unpinLastRecord() throws Throwable {
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        MethodHandle text = lookup.findGetter(Unpin.class, "text", String.class);
        MethodHandle number = lookup.findGetter(Unpin.class, "number", int.class);
        for (MethodType type : List.of(MethodType.methodType(boolean.class, Unpin.class, Object.class),
                MethodType.methodType(int.class, Unpin.class), MethodType.methodType(String.class, Unpin.class))) {
            String name = type.returnType() == boolean.class ? "equals"
                    : type.returnType() == int.class ? "hashCode" : "toString";
            ObjectMethods.bootstrap(lookup, name, type, Unpin.class, "text;number", text, number);
        }
    }

    /** @return the names of the live {@code sluice-*} threads, of {@code webapp} only (its context class loader) */
    private static List<String> sluiceThreads(ClassLoader webapp) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith("sluice-"))
                .filter(t -> webapp == null || t.getContextClassLoader() == webapp)
                .map(Thread::getName).toList();
    }

    /**
     * What a container shows its web applications: the JDK (the platform class loader's parent chain), the servlet
     * API and the container's own classes. Nothing of the test's class path: the web application's Sluice, Jedis and
     * the rest come from its {@code WEB-INF/lib} alone.
     */
    private static final class Container extends ClassLoader {
        private static final List<String> SHOWN = List.of("jakarta.servlet.", "org.eclipse.jetty.");
        private static final List<String> SHOWN_RESOURCES = List.of("jakarta/servlet/", "org/eclipse/jetty/");

        Container() {
            super("container", ClassLoader.getPlatformClassLoader());
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            if (SHOWN.stream().anyMatch(name::startsWith)) {
                return RedeployIT.class.getClassLoader().loadClass(name);
            }
            throw new ClassNotFoundException(name);
        }

        @Override
        protected URL findResource(String name) {
            return SHOWN_RESOURCES.stream().anyMatch(name::startsWith)
                    ? RedeployIT.class.getClassLoader().getResource(name) : null;
        }

        @Override
        protected Enumeration<URL> findResources(String name) throws IOException {
            return SHOWN_RESOURCES.stream().anyMatch(name::startsWith)
                    ? RedeployIT.class.getClassLoader().getResources(name) : Collections.emptyEnumeration();
        }
    }

    /** The application behind the filter. */
    private static final class Hello extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
            response.setContentType("text/plain");
            response.getWriter().write("hello");
        }
    }
}
