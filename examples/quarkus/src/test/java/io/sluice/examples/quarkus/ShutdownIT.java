package io.sluice.examples.quarkus;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.testing.Await;
import io.sluice.core.testing.RedisProcess;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * The packaged application (target/quarkus-app), deciding in a real redis-server, stops on SIGTERM with the JAX-RS
 * filter's front door closed: Quarkus' shutdown (as before a dev-mode reload) closes it, its threads end and its Redis
 * connections go.
 */
class ShutdownIT {

    private static final Pattern LISTENING = Pattern.compile("Listening on: http://[^:]+:(\\d+)");

    @Test
    void sigtermClosesTheFrontDoorAndItsRedisConnections(@TempDir Path dir) throws Exception {
        try (RedisProcess redis = RedisProcess.start(); Jedis observer = new Jedis("localhost", redis.port())) {
            Path log = dir.resolve("out.log");
            Process app = new ProcessBuilder(Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Dquarkus.http.port=0", "-Dsluice.store=" + redis.url(),
                    "-jar", "target/quarkus-app/quarkus-run.jar")
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            try {
                Await.until("the application listening", Duration.ofSeconds(120),
                        () -> port(log) > 0 || !app.isAlive());
                assertThat(app.isAlive()).as(read(log)).isTrue();
                HttpResponse<String> books = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://localhost:" + port(log) + "/books")).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(books.statusCode()).isEqualTo(200);
                Await.until("the application's Redis connections", Duration.ofSeconds(30),
                        () -> othersConnected(observer) > 0);

                app.destroy();                                   // SIGTERM
                assertThat(app.waitFor(60, TimeUnit.SECONDS)).as("stopped within 60 s: " + read(log)).isTrue();
                String output = read(log);
                assertThat(app.exitValue()).as("128 + SIGTERM, its shutdown hooks run: " + output).isEqualTo(143);
                // the feature Quarkus REST filters with was closed: the engine's Redis subscription thread ended
                assertThat(output).containsPattern("Sluice rate limiting \\(JAX-RS\\): stopped, its front door closed"
                        + " \\([1-9]\\d* of Sluice's threads ended\\)");
                Await.until("no connection of the application left", Duration.ofSeconds(10),
                        () -> othersConnected(observer) == 0);
            } finally {
                app.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /** @return the connections to Redis besides {@code observer}'s own */
    private static long othersConnected(Jedis observer) {
        long self = observer.clientId();
        return observer.clientList().lines().filter(l -> !l.startsWith("id=" + self + " ")).count();
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
