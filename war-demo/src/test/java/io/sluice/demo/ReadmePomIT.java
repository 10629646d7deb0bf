package io.sluice.demo;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

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
 * the README's {@code web.xml} as shown (issue 30: it was a fragment, now the whole file), by running
 * {@code mvn package} on it, checks the WAR's jars against the ones the README lists, and runs it in Jetty.
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
        String webXml = block(readme, "and this `web.xml`, the whole file (`src/main/webapp/WEB-INF/web.xml`), limits");
        assertThat(pom).contains("<packaging>war</packaging>", "<artifactId>sluice-filter</artifactId>",
                "<artifactId>maven-war-plugin</artifactId>");
        String version = between(pom, "<artifactId>sluice-filter</artifactId>\n      <version>", "</version>");

        Path project = dir.resolve("my-app");
        write(project.resolve("pom.xml"), pom);
        assertThat(webXml).as("the whole file").startsWith("<?xml").contains("<filter-class>io.sluice.filter"
                + ".RateLimitFilter</filter-class>").endsWith("</web-app>\n");
        write(project.resolve("src/main/webapp/WEB-INF/web.xml"), webXml);
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
        List<String> entries = packaged(project, localRepository(dir.resolve("repository"), version), "my-app");
        assertThat(entries).contains("WEB-INF/web.xml", "WEB-INF/classes/example/Hello.class");
        assertThat(entries.stream().filter(e -> e.startsWith("WEB-INF/lib/") && e.endsWith(".jar"))
                .map(e -> e.substring("WEB-INF/lib/".length()).replaceFirst("-[0-9].*\\.jar$", "")))
                .as("the jars the README says the filter brings (and no servlet API: the container's)")
                .containsExactlyInAnyOrder("sluice-filter", "sluice-http", "sluice-core", "snakeyaml", "caffeine",
                        "jspecify", "error_prone_annotations");

        try (DemoServer app = DemoServer.start(project.resolve("target/my-app.war"), 0)) {    // the README's web.xml
            given().get(app.baseUri() + "/hello").then().statusCode(200).body(equalTo("hello\n"))
                    .header("RateLimit-Policy", "\"per-ip\";q=100;w=60").header("X-RateLimit-Remaining", "99");
        }
    }

    /**
     * Issue 30: no copy-paste {@code pom.xml} said which Jersey jars a WAR for Tomcat or Jetty needs. This builds the one
     * docs/jaxrs.md shows, as shown, with an application and a limited resource of its own, and checks the WAR.
     */
    @Test
    void theJaxrsGuidesPomBuildsAWarWithJerseyForAServletContainer(@TempDir Path dir) throws Exception {
        String pom = block(Files.readAllLines(ROOT.resolve("docs/jaxrs.md")), "A complete `pom.xml`");
        String version = between(pom, "<artifactId>sluice-jaxrs</artifactId>\n      <version>", "</version>");
        String jersey = between(pom, "<jersey.version>", "</jersey.version>");
        assertThat(jersey).as("the Jersey the build tests on").isEqualTo(between(Files.readString(ROOT.resolve(
                "pom.xml")), "<jersey.version>", "</jersey.version>"));

        Path project = dir.resolve("my-api");
        write(project.resolve("pom.xml"), pom);
        write(project.resolve("src/main/java/example/Api.java"), """
                package example;

                import io.sluice.jaxrs.RateLimit;
                import jakarta.ws.rs.ApplicationPath;
                import jakarta.ws.rs.GET;
                import jakarta.ws.rs.Path;
                import jakarta.ws.rs.core.Application;

                @ApplicationPath("/api")
                public class Api extends Application {
                    @Path("/hello")
                    public static class Hello {
                        @GET
                        @RateLimit("5/1m")
                        public String get() {
                            return "hello";
                        }
                    }
                }
                """);
        List<String> entries = packaged(project, localRepository(dir.resolve("repository"), version), "my-api");

        assertThat(entries).contains("WEB-INF/classes/example/Api.class", "WEB-INF/lib/sluice-jaxrs-" + version + ".jar",
                "WEB-INF/lib/jersey-container-servlet-" + jersey + ".jar",
                "WEB-INF/lib/jersey-container-servlet-core-" + jersey + ".jar", "WEB-INF/lib/jersey-server-" + jersey
                        + ".jar", "WEB-INF/lib/jersey-common-" + jersey + ".jar", "WEB-INF/lib/jersey-hk2-" + jersey
                        + ".jar", "WEB-INF/lib/jakarta.ws.rs-api-3.1.0.jar");
        assertThat(entries).as("the container provides the servlet API")
                .noneMatch(e -> e.startsWith("WEB-INF/lib/jakarta.servlet-api"));
    }

    /** @return the entries of the WAR {@code mvn package} makes of {@code project}, as {@code target/<name>.war} */
    private static List<String> packaged(Path project, Path repository, String name) throws Exception {
        Path log = project.resolveSibling(name + "-build.log");
        Process mvn = new ProcessBuilder("mvn", "-B", "-q", "-Dmaven.repo.local=" + repository, "package")
                .directory(project.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean done = mvn.waitFor(5, TimeUnit.MINUTES);
        if (!done) {
            mvn.destroyForcibly();
        }
        assertThat(done && mvn.exitValue() == 0).as("mvn package of the documented pom:\n%s",
                Files.readString(log)).isTrue();
        List<String> entries = new ArrayList<>();
        try (ZipFile war = new ZipFile(project.resolve("target/" + name + ".war").toFile())) {
            Collections.list(war.entries()).stream().map(ZipEntry::getName).forEach(entries::add);
        }
        return entries;
    }

    /** @return the fenced block after the first line that holds {@code intro} (the next line that opens a fence) */
    private static String block(List<String> readme, String intro) {
        int at = readme.stream().filter(l -> l.contains(intro)).findFirst().map(readme::indexOf).orElse(-1);
        assertThat(at).as("a line \"%s\"", intro).isNotNegative();
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
