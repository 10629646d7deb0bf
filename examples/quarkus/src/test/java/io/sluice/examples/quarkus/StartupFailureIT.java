package io.sluice.examples.quarkus;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged application (target/quarkus-app, as {@code mvn package} leaves it) does not start on a bad limit read
 * from Quarkus' configuration, and says which parameter, from where, and its value.
 */
class StartupFailureIT {

    @Test
    void aBadLimitInTheConfigurationStopsStartUpNamingItAndItsValue(@TempDir Path dir) throws Exception {
        Path config = Files.writeString(dir.resolve("bad.properties"), "sluice.limit=100/1w\n");
        Path log = dir.resolve("out.log");
        Process app = new ProcessBuilder(Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dquarkus.http.port=0", "-Dquarkus.config.locations=" + config.toUri(),
                "-jar", "target/quarkus-app/quarkus-run.jar")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean ended = app.waitFor(120, TimeUnit.SECONDS);
        if (!ended) {
            app.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        String output = Files.readString(log);
        assertTrue(ended, () -> "ended on its own: " + output);
        assertNotEquals(0, app.exitValue(), output);
        assertTrue(output.contains("sluice.limit (MicroProfile Config)") && output.contains("got \"100/1w\""), output);
    }
}
