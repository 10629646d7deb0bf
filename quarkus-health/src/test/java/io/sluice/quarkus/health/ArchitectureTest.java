package io.sluice.quarkus.health;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The readiness check's module, read from its main classes (no jar, no test class): free of cycles, and building on
 * {@code sluice-cdi} alone, never on {@code sluice-quarkus} (which must not need it), Quarkus, JAX-RS or Vert.x, so
 * it is the one jar an application adds with {@code quarkus-smallrye-health}.
 */
class ArchitectureTest {

    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
                .importPackages("io.sluice.quarkus.health");
        assertThat(classes.contain(QuarkusReadiness.class)).as("this module's classes were read").isTrue();
    }

    @Test
    void thePackagesHaveNoCycles() {
        slices().matching("io.sluice.(**)").should().beFreeOfCycles().check(classes);
    }

    @Test
    void itBuildsOnTheCdiModuleAloneNotOnSluiceQuarkusNorQuarkus() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("io.quarkus..", "io.vertx..",
                "io.sluice.jaxrs..", "jakarta.ws.rs..", "io.sluice.redis..", "redis.clients..", "io.micrometer..")
                .check(classes);
        noClasses().should().dependOnClassesThat().resideInAPackage("io.sluice.quarkus").check(classes);
    }
}
