package io.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
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
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process demo = new ProcessBuilder(java.toString(), "-jar", TARGET.resolve("sluice-demo-ee-runner.jar")
                .toString(), "0").redirectErrorStream(true).start();
        try {
            StringBuffer seen = new StringBuffer();
            CompletableFuture<String> base = CompletableFuture.supplyAsync(() -> {
                try (BufferedReader lines = new BufferedReader(new InputStreamReader(demo.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    for (String line; (line = lines.readLine()) != null; ) {
                        Matcher m = STARTED.matcher(line);
                        if (m.find()) {
                            return m.group(1);
                        }
                        seen.append(line).append('\n');
                    }
                } catch (Exception e) {
                    seen.append(e);
                }
                throw new AssertionError("the runner exited without starting the demo:\n" + seen);
            });
            String uri = base.get(2, TimeUnit.MINUTES);
            assertThat(seen.toString()).as("no Jersey warnings at start-up (issue 24)")
                    .doesNotContain("jakarta.activation.DataSource", "WADL");

            HttpResponse<String> hello = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(uri
                    + "/api/hello")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(hello.statusCode()).isEqualTo(200);
            assertThat(hello.headers().firstValue("RateLimit-Policy")).hasValue("\"hello\";q=5;w=10");
            HttpResponse<String> greeting = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(uri
                    + "/api/jaxrs/greeting")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(greeting.statusCode()).as("JAX-RS from the runner's Jersey").isEqualTo(200);
        } finally {
            demo.destroy();
            if (!demo.waitFor(30, TimeUnit.SECONDS)) {
                demo.destroyForcibly();
            }
        }
    }
}
