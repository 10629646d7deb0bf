package io.sluice.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * What javac cannot check in the module declarations: a qualified {@code exports ... to} or {@code opens ... to} names
 * modules that depend on the declaring one, so are compiled after it, and javac reports each as "module not found"
 * (the declarations suppress that warning, {@code @SuppressWarnings("module")}). Read from the compiled
 * {@code module-info.class} of every module of the build, each such target must be a module of the build: a misspelt
 * one would otherwise grant nothing, silently.
 */
class ModuleGraphTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void everyQualifiedExportAndOpensNamesAModuleOfTheBuild() throws IOException {
        Map<String, ModuleDescriptor> modules = new TreeMap<>();
        try (Stream<Path> dirs = Files.list(ROOT)) {
            for (Path info : dirs.map(d -> d.resolve("target/classes/module-info.class")).filter(Files::isRegularFile)
                    .toList()) {
                try (InputStream in = Files.newInputStream(info)) {
                    ModuleDescriptor d = ModuleDescriptor.read(in);
                    modules.put(d.name(), d);
                }
            }
        }
        assertThat(modules).containsKeys("io.sluice.core", "io.sluice.redis", "io.sluice.http", "io.sluice.micrometer",
                "io.sluice.cdi", "io.sluice.filter", "io.sluice.jaxrs");
        int qualified = 0;
        for (ModuleDescriptor d : modules.values()) {
            for (ModuleDescriptor.Exports e : d.exports()) {
                assertThat(modules.keySet()).as("%s exports %s to", d.name(), e.source()).containsAll(e.targets());
                qualified += e.targets().size();
            }
            for (ModuleDescriptor.Opens o : d.opens()) {
                assertThat(modules.keySet()).as("%s opens %s to", d.name(), o.source()).containsAll(o.targets());
            }
        }
        assertThat(qualified).as("qualified exports read").isGreaterThan(10);
    }
}
