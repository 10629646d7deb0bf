package io.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 24: the quick start gave no {@code pom.xml}, and a minimal one failed on Maven 3.8 and Java 17 in the default
 * {@code maven-war-plugin} 2.2. This builds the README's "Minimal pom.xml" as shown, with a servlet of its own and
 * the README's {@code web.xml} lines, by running {@code mvn package} on it, and checks the WAR.
 *
 * <p>Sluice is not on Maven Central, and the local repository may hold stale builds of it: the build gets a local
 * repository of its own, whose {@code io/sluice} holds this reactor's jars and POMs and whose every other entry links
 * to the user's local repository (for the plugins and third-party dependencies, fetched there if missing).
 */
class ReadmePomIT {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final String[] MODULES = {"core", "redis", "http", "micrometer", "cdi", "filter", "jaxrs"};

    @Test
    void theQuickStartsMinimalPomBuildsAWarWithTheFilter(@TempDir Path dir) throws Exception {
        List<String> readme = Files.readAllLines(ROOT.resolve("README.md"));
        String pom = block(readme, "Minimal pom.xml:");
        String webXml = block(readme, "and five lines of `web.xml` limit every client IP to 100 requests a minute:");
        assertThat(pom).contains("<packaging>war</packaging>", "<artifactId>sluice-filter</artifactId>",
                "<artifactId>maven-war-plugin</artifactId>");
        String version = between(pom, "<artifactId>sluice-filter</artifactId>\n      <version>", "</version>");

        Path project = dir.resolve("my-app");
        write(project.resolve("pom.xml"), pom);
        write(project.resolve("src/main/webapp/WEB-INF/web.xml"), "<web-app xmlns=\"https://jakarta.ee/xml/ns/jakartaee\""
                + " version=\"6.0\">\n" + webXml + "</web-app>\n");
        write(project.resolve("src/main/java/example/Hello.java"), """
                package example;

                import jakarta.servlet.annotation.WebServlet;
                import jakarta.servlet.http.HttpServlet;
                import jakarta.servlet.http.HttpServletRequest;
                import jakarta.servlet.http.HttpServletResponse;
                import java.io.IOException;

                @WebServlet("/hello")
                public class Hello extends HttpServlet {
                    @Override
                    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
                        response.getWriter().println("hello");
                    }
                }
                """);
        Path repository = localRepository(dir.resolve("repository"), version);

        Path log = dir.resolve("build.log");
        Process mvn = new ProcessBuilder("mvn", "-B", "-q", "-Dmaven.repo.local=" + repository, "package")
                .directory(project.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean done = mvn.waitFor(5, TimeUnit.MINUTES);
        if (!done) {
            mvn.destroyForcibly();
        }
        assertThat(done && mvn.exitValue() == 0).as("mvn package of the README's pom:\n%s",
                Files.readString(log)).isTrue();

        List<String> entries = new ArrayList<>();
        try (ZipFile war = new ZipFile(project.resolve("target/my-app.war").toFile())) {
            Collections.list(war.entries()).stream().map(ZipEntry::getName).forEach(entries::add);
        }
        assertThat(entries).contains("WEB-INF/web.xml", "WEB-INF/classes/example/Hello.class",
                "WEB-INF/lib/sluice-filter-" + version + ".jar", "WEB-INF/lib/sluice-core-" + version + ".jar",
                "WEB-INF/lib/sluice-http-" + version + ".jar");
        assertThat(entries).as("the container provides the servlet API")
                .noneMatch(e -> e.startsWith("WEB-INF/lib/jakarta.servlet-api"));
    }

    /** @return the fenced block that follows the line {@code intro} (the next line that opens a fence) */
    private static String block(List<String> readme, String intro) {
        int at = readme.indexOf(intro);
        assertThat(at).as("README line \"%s\"", intro).isNotNegative();
        int open = at + 1;
        while (open < readme.size() && !readme.get(open).startsWith("```")) {
            open++;
        }
        StringBuilder out = new StringBuilder();
        for (int i = open + 1; i < readme.size() && !readme.get(i).startsWith("```"); i++) {
            out.append(readme.get(i)).append('\n');
        }
        return out.toString();
    }

    private static String between(String s, String before, String after) {
        int from = s.indexOf(before);
        assertThat(from).as("\"%s\" in the README's pom", before).isNotNegative();
        from += before.length();
        return s.substring(from, s.indexOf(after, from));
    }

    private static void write(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text, StandardCharsets.UTF_8);
    }

    /**
     * @return a local repository whose {@code io/sluice} is this reactor's, and whose other entries link to the
     *     user's
     */
    private static Path localRepository(Path repository, String version) throws IOException {
        String configured = System.getProperty("maven.repo.local");
        Path user = configured != null && !configured.isBlank() ? Path.of(configured)
                : Path.of(System.getProperty("user.home"), ".m2", "repository");
        Files.createDirectories(user.resolve("io"));
        linkAllBut(user, repository, "io");
        linkAllBut(user.resolve("io"), repository.resolve("io"), "sluice");
        Path sluice = repository.resolve("io/sluice");
        install(sluice, "sluice-parent", version, ROOT.resolve("pom.xml"), null);
        assertThat(ROOT.resolve("filter/target/sluice-filter-" + version + ".jar"))
                .as("the reactor's jars (run through Maven's verify phase, as mvn -B verify does)").exists();
        for (String module : MODULES) {
            String artifact = "sluice-" + module;
            Path jar = ROOT.resolve(module).resolve("target").resolve(artifact + "-" + version + ".jar");
            if (Files.exists(jar)) {         // a module this reactor did not build is not needed: mvn says so if it is
                install(sluice, artifact, version, ROOT.resolve(module).resolve("pom.xml"), jar);
            }
        }
        return repository;
    }

    private static void linkAllBut(Path from, Path to, String except) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> entries = Files.list(from)) {
            for (Path entry : (Iterable<Path>) entries::iterator) {
                if (!entry.getFileName().toString().equals(except)) {
                    Files.createSymbolicLink(to.resolve(entry.getFileName().toString()), entry);
                }
            }
        }
    }

    private static void install(Path sluice, String artifact, String version, Path pom, Path jar) throws IOException {
        Path at = sluice.resolve(artifact).resolve(version);
        Files.createDirectories(at);
        Files.copy(pom, at.resolve(artifact + "-" + version + ".pom"));
        if (jar != null) {
            Files.copy(jar, at.resolve(artifact + "-" + version + ".jar"));
        }
    }
}
