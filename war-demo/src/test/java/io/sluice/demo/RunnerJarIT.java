package io.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.testing.RedisProcess;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Issue 24: the demo ran only inside Maven ({@code exec:java}). {@code java -jar target/sluice-demo-ee-runner.jar}
 * starts the built WAR (the one beside it) without Maven: run here on a free port, as a user would.
 */
class RunnerJarIT {

    private static final Path TARGET = Path.of("target").toAbsolutePath();
    private static final Pattern STARTED = Pattern.compile("Sluice demo: (http://\\S+)/ ");

    @Test
    void theRunnerJarStartsTheWarBesideItWithoutMaven() throws Exception {
        try (Demo demo = new Demo(Map.of())) {
            String uri = demo.uri();
            assertThat(demo.output()).as("no Jersey warnings at start-up (issue 24)")
                    .doesNotContain("jakarta.activation.DataSource", "WADL");

            assertThat(get(uri + "/api/hello").statusCode()).isEqualTo(200);
            assertThat(get(uri + "/api/hello").headers().firstValue("RateLimit-Policy"))
                    .hasValue("\"hello\";q=5;w=10");
            assertThat(get(uri + "/api/jaxrs/greeting").statusCode()).as("JAX-RS from the runner's Jersey")
                    .isEqualTo(200);
        }
    }

    /**
     * Issue 30: with Redis, every start printed {@code SLF4J: Failed to load class "org.slf4j.impl.StaticLoggerBinder"}
     * (Jedis's SLF4J 1.7 found no binding in the WAR) and Jedis's own log was dropped. The WAR now brings SLF4J 2 and
     * its java.util.logging provider, where Sluice logs.
     */
    @Test
    void withRedisTheDemoPrintsNoSlf4jWarning() throws Exception {
        try (RedisProcess redis = RedisProcess.start(); Demo demo = new Demo(Map.of("SLUICE_REDIS_URL", redis.url()))) {
            String uri = demo.uri();
            assertThat(get(uri + "/api/hello").statusCode()).isEqualTo(200);
            assertThat(post(uri + "/api/jobs", "{}").statusCode()).as("a job: the queue on Redis").isIn(200, 202);
            assertThat(demo.output()).as("on Redis").contains("store = " + redis.url());

            String output = demo.stop();
            assertThat(output).doesNotContain("SLF4J");
        }
    }

    private static HttpResponse<String> get(String uri) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(uri)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> post(String uri, String body) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(uri)).header("Content-Type",
                "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** The runner jar in a process of its own, on a free port, its output (stdout and stderr) collected whole. */
    private static final class Demo implements AutoCloseable {
        private final Process process;
        private final StringBuffer seen = new StringBuffer();
        private final CompletableFuture<String> base = new CompletableFuture<>();
        private final Thread reader;

        Demo(Map<String, String> environment) throws Exception {
            Path java = Path.of(System.getProperty("java.home"), "bin", "java");
            ProcessBuilder b = new ProcessBuilder(java.toString(), "-jar", TARGET.resolve("sluice-demo-ee-runner.jar")
                    .toString(), "0").redirectErrorStream(true);
            b.environment().putAll(environment);
            process = b.start();
            reader = new Thread(this::read, "runner-output");
            reader.start();
        }

        private void read() {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line; (line = lines.readLine()) != null; ) {
                    Matcher m = STARTED.matcher(line);
                    if (m.find()) {
                        base.complete(m.group(1));
                    }
                    seen.append(line).append('\n');
                }
            } catch (Exception e) {
                seen.append(e);
            }
            base.completeExceptionally(new AssertionError("the runner exited without starting the demo:\n" + seen));
        }

        /** @return the demo's base URI, once it has started */
        String uri() throws Exception {
            return base.get(2, TimeUnit.MINUTES);
        }

        /** @return what it printed so far */
        String output() {
            return seen.toString();
        }

        /** Stops it: @return all it printed */
        String stop() throws Exception {
            close();
            reader.join(TimeUnit.SECONDS.toMillis(30));
            return seen.toString();
        }

        @Override
        public void close() throws Exception {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }
}
