package io.sluice.quarkus;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Quarkus module's main classes (no jar, no test class; {@code io.sluice.quarkus.health} is another module's):
 * free of cycles, and naming nothing an application may lack. ArC loads every bean class it finds in an index, so a
 * class here naming an optional API (MicroProfile Health, Micrometer, Jedis) would stop the start-up of an application
 * without it; the readiness check lives in {@code sluice-quarkus-health} for that reason. Quarkus REST runs on Vert.x,
 * without the servlet API.
 */
class ArchitectureTest {

    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
                .withImportOption(location -> !location.contains("/io/sluice/quarkus/health/"))
                .importPackages("io.sluice.quarkus");
        assertThat(classes.contain(QuarkusSluiceBeans.class) && classes.contain(SluiceShutdown.class))
                .as("this module's classes were read").isTrue();
    }

    @Test
    void thePackagesHaveNoCycles() {
        slices().matching("io.sluice.(**)").should().beFreeOfCycles().check(classes);
    }

    @Test
    void nothingNamesAnOptionalApi() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("org.eclipse.microprofile.health..",
                "io.smallrye.health..", "io.sluice.quarkus.health..", "io.micrometer..", "io.sluice.micrometer..",
                "redis.clients..", "io.sluice.redis..").check(classes);
    }

    @Test
    void nothingNamesTheServletApi() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("jakarta.servlet..").check(classes);
    }
}
