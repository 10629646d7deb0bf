package io.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo's launcher ({@code mvn -pl war-demo -am package -Pdemo}) when it cannot start. */
class DemoServerTest {

    @TempDir
    Path war;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    /** @return the launcher's exit status; what it printed is in {@link #out} and {@link #err} */
    private int launch(String... args) throws Exception {
        Files.createDirectories(war.resolve("WEB-INF"));        // an exploded WAR: the port fails before it deploys
        Files.writeString(war.resolve("WEB-INF/web.xml"), "<web-app xmlns=\"https://jakarta.ee/xml/ns/jakartaee\" "
                + "version=\"6.0\"/>");
        return DemoServer.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), demo -> fail("started on a taken port"));
    }

    private static List<String> lines(ByteArrayOutputStream stream) {
        return stream.toString(StandardCharsets.UTF_8).lines().toList();
    }

    @Test
    void aTakenPortEndsInOneLineSayingSoAndHowToChooseAnother() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            int port = taken.getLocalPort();

            int status = launch(war.toString(), Integer.toString(port));

            assertThat(status).as("a failure for Maven and scripts").isEqualTo(1);
            assertThat(lines(err)).as("one line, no stack trace").singleElement().asString()
                    .startsWith("Sluice demo: port " + port + " is taken (Address already in use")
                    .endsWith("). Choose another port with -Ddemo.port, such as: mvn -pl war-demo -am package -Pdemo "
                            + "-Ddemo.port=" + (port + 1));
            assertThat(lines(out)).isEmpty();
        }
    }

    @Test
    void aPortThatIsNoNumberEndsInOneLineToo() throws Exception {
        assertThat(launch(war.toString(), "eighty")).isEqualTo(2);
        assertThat(lines(err)).containsExactly("Sluice demo: the port must be a number from 0 to 65535, got \"eighty\"; "
                + "choose it with -Ddemo.port, such as: mvn -pl war-demo -am package -Pdemo -Ddemo.port=8081");
    }

    @Test
    void theRunnerJarRunsTheWarBesideItUnlessGivenOne() {
        Path runner = Path.of("/opt/demo/sluice-demo-ee-runner.jar");
        String beside = Path.of("/opt/demo/sluice-demo-ee.war").toString();

        assertThat(DemoServer.withWarBeside(new String[0], runner)).containsExactly(beside);
        assertThat(DemoServer.withWarBeside(new String[] {"8081"}, runner)).containsExactly(beside, "8081");
        assertThat(DemoServer.withWarBeside(new String[] {"my.war"}, runner)).containsExactly("my.war");
        assertThat(DemoServer.withWarBeside(new String[] {"my.war", "8081"}, runner)).containsExactly("my.war", "8081");
        assertThat(DemoServer.withWarBeside(new String[0], null)).as("not from the jar: usage").isEmpty();
    }
}
