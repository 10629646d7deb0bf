package io.sluice.cdi;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.sluice.cdi.internal.CdiIntegration;
import org.junit.jupiter.api.Test;

/**
 * The CDI integration's packages, read from its main classes (no jar, no test class): free of cycles, the arrow
 * pointing from {@code internal} (which fires the API's {@code RateLimitedEvent}) to the API, never back.
 */
class ArchitectureTest {

    @Test
    void thePackagesHaveNoCycles() {
        JavaClasses classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS).importPackages("io.sluice.cdi");
        assertThat(classes.contain(CdiIntegration.class)).as("this module's classes were read").isTrue();
        slices().matching("io.sluice.(**)").should().beFreeOfCycles().check(classes);
    }
}
