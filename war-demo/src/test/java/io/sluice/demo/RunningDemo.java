package io.sluice.demo;

import static io.restassured.RestAssured.given;

import io.restassured.specification.RequestSpecification;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The packaged demo WAR ({@code target/sluice-demo-ee.war}, built by {@code package} before failsafe runs) in embedded
 * Jetty on a free port, for the integration tests.
 *
 * <p>Every test counts in keys of its own: the tests arrive "through a proxy" at 127.0.0.1 and name a fresh client in
 * {@code X-Forwarded-For}, which the filter believes because {@code -Dsluice.trusted-proxies=127.0.0.1} is set here —
 * the same system-property override an operator would use, on top of the WAR's {@code web.xml}.
 *
 * <p>A JUnit extension: {@code @RegisterExtension static final RunningDemo demo = RunningDemo.at("/");} runs the demo
 * for the class's tests (started before its {@code @BeforeAll} methods, stopped after its {@code @AfterAll} methods).
 */
final class RunningDemo implements BeforeAllCallback, AfterAllCallback {

    private static final AtomicInteger CLIENTS = new AtomicInteger();

    private final String contextPath;
    private DemoServer server;

    private RunningDemo(String contextPath) {
        this.contextPath = contextPath;
    }

    /** @param contextPath {@code /} or a path such as {@code /demo} */
    static RunningDemo at(String contextPath) {
        return new RunningDemo(contextPath);
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        System.setProperty("sluice.trusted-proxies", "127.0.0.1");
        String webapp = System.getProperty("demo.webapp", "target/sluice-demo-ee.war");
        server = DemoServer.start(Path.of(webapp), contextPath, 0);
    }

    /** @return a client address no other test has used, from TEST-NET-3 (203.0.113.0/24) and beyond */
    static String freshClient() {
        int n = CLIENTS.incrementAndGet();
        return "203.0." + (113 + n / 250) + "." + (1 + n % 250);
    }

    /**
     * {@code count} GETs of {@code path} from a fresh client, fired back to back; repeated from another fresh client
     * while {@code undisturbed} says a window boundary or a refill may have split the burst (see {@link Burst}).
     */
    Burst burst(String path, int count, java.util.function.Predicate<Burst> undisturbed) {
        return Burst.undisturbed(undisturbed, () -> {
            String client = freshClient();
            return Burst.fire(count, i -> from(client).get(path));
        });
    }

    /** @return a request from {@code client}, through the trusted proxy at 127.0.0.1 */
    RequestSpecification from(String client) {
        return direct().header("X-Forwarded-For", client);
    }

    /** @return a request from the socket peer itself, as a browser on this machine sends it */
    RequestSpecification direct() {
        return given().baseUri("http://127.0.0.1").port(server.port()).basePath(server.contextPath());
    }

    String baseUri() {
        return server.baseUri();
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (server != null) {
            server.close();
        }
    }
}
