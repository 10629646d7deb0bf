package io.sluice.demo;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The main class of {@code target/sluice-demo-ee-runner.jar}: runs {@link DemoServer} without Maven, its embedded
 * Jetty and Jersey taken from {@code demo-lib/} beside the jar (where the build copies them).
 *
 * <pre>java -jar war-demo/target/sluice-demo-ee-runner.jar [WAR] [PORT]</pre>
 *
 * The WAR defaults to {@code sluice-demo-ee.war} beside the jar, the port to 8080.
 */
public final class DemoRunner {

    private DemoRunner() {}

    public static void main(String[] args) throws Throwable {
        Path jar = Path.of(DemoRunner.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path lib = jar.resolveSibling("demo-lib");
        if (!Files.isDirectory(lib)) {
            System.err.println("Sluice demo: " + lib + " is missing; build it with: mvn -pl war-demo -am package");
            System.exit(1);
        }
        ClassLoader loader = new URLClassLoader("demo", urls(jar, lib), ClassLoader.getPlatformClassLoader());
        Thread.currentThread().setContextClassLoader(loader);
        try {
            Class.forName(DemoServer.class.getName(), true, loader).getMethod("main", String[].class)
                    .invoke(null, (Object) args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** @return the jar itself, then every jar of {@code lib} */
    private static URL[] urls(Path jar, Path lib) throws IOException {
        List<URL> urls = new ArrayList<>();
        urls.add(jar.toUri().toURL());
        try (Stream<Path> jars = Files.list(lib)) {
            for (Path j : (Iterable<Path>) jars.filter(p -> p.toString().endsWith(".jar")).sorted()::iterator) {
                urls.add(j.toUri().toURL());
            }
        }
        return urls.toArray(URL[]::new);
    }
}
