package io.sluice.benchmarks.quarkus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.testing.Await;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An application with {@code sluice-quarkus} and neither SmallRye Health nor the MicroProfile Health API (this one, as
 * packaged in target/quarkus-app) starts, and limits: no class of {@code sluice-quarkus} that ArC loads names what it
 * lacks (the readiness check is {@code sluice-quarkus-health}'s, as loading it here stopped start-up).
 */
class WithoutHealthIT {

    private static final Pattern LISTENING = Pattern.compile("Listening on: http://[^:\\s]+:(\\d+)");
    private static final Path APP = Paths.get("target", "quarkus-app");

    @Test
    void startsAndLimitsWithoutSmallRyeHealth(@TempDir Path dir) throws Exception {
        try (Stream<Path> jars = Files.walk(APP.resolve("lib"))) {
            assertFalse(jars.anyMatch(j -> j.getFileName().toString().contains("health")),
                    "the application has no health jar");
        }
        Path log = dir.resolve("out.log");
        Process app = new ProcessBuilder(Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dquarkus.http.port=0", "-Dquarkus.log.level=INFO", "-jar", APP.resolve("quarkus-run.jar").toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            int port = awaitPort(app, log);
            HttpResponse<String> hello = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, hello.statusCode(), read(log));
            assertTrue(hello.headers().firstValue("RateLimit-Policy").isPresent(), () -> "Sluice's headers: " + hello);
        } finally {
            app.destroy();
            if (!app.waitFor(60, TimeUnit.SECONDS)) {
                app.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /** @return the port the application listens on, once it says so; fails when it ends first */
    private static int awaitPort(Process app, Path log) {
        Await.until("the application listening", Duration.ofMinutes(2), () -> port(log) > 0 || !app.isAlive());
        assertTrue(app.isAlive(), () -> "started: " + read(log));
        return port(log);
    }

    private static int port(Path log) {
        Matcher m = LISTENING.matcher(read(log));
        return m.find() ? Integer.parseInt(m.group(1)) : 0;
    }

    private static String read(Path log) {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
