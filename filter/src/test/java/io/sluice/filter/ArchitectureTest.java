package io.sluice.filter;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The servlet filter's packages, read from its main classes (no jar, no test class): free of cycles (one package
 * today; the test holds for those it grows), and depending on what a plain servlet container has: CDI and MicroProfile
 * Config are reached only through {@code io.sluice.http.spi}, which {@code sluice-cdi} implements.
 */
class ArchitectureTest {

    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS).importPackages("io.sluice.filter");
        assertThat(classes.contain(RateLimitFilter.class)).as("this module's classes were read").isTrue();
    }

    @Test
    void thePackagesHaveNoCycles() {
        slices().matching("io.sluice.(**)").should().beFreeOfCycles().check(classes);
    }

    @Test
    void theFilterNamesNoTypeOfTheCdiModuleNorOfCdiOrMicroProfile() {
        noClasses().that().resideInAPackage("io.sluice.filter..").should().dependOnClassesThat()
                .resideInAnyPackage("io.sluice.cdi..", "jakarta.enterprise..", "jakarta.inject..",
                        "org.eclipse.microprofile..")
                .check(classes);
    }
}
