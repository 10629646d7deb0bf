package io.sluice.http;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The front door's shape, read from its byte code: it builds on the core alone, names no web framework (the servlet
 * filter and the JAX-RS filter adapt it), and reaches the Redis store only through {@code StoreProvider}.
 */
class ArchitectureTest {

    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(location -> !location.contains("-tests.jar"))     // core's test harness
                .importPackages("io.sluice.core", "io.sluice.http");
    }

    @Test
    void thePackagesHaveNoCycles() {
        slices().matching("io.sluice.(**)").should().beFreeOfCycles().check(classes);
    }

    @Test
    void theFrontDoorNamesNoWebFrameworkAndNoStoreModule() {
        noClasses().that().resideInAPackage("io.sluice.http..")
                .should().dependOnClassesThat().resideInAnyPackage("jakarta..", "javax.servlet..", "javax.ws..",
                        "redis.clients..", "io.micrometer..", "org.eclipse.microprofile..",
                        "io.sluice.redis..", "io.sluice.cdi..", "io.sluice.micrometer..", "io.sluice.filter..",
                        "io.sluice.jaxrs..")
                .check(classes);
    }
}
