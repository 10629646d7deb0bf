package io.sluice.filter;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The servlet filter's packages, read from its main classes (no jar, no test class): free of cycles. One package today;
 * the test holds for those it grows.
 */
class ArchitectureTest {

    @Test
    void thePackagesHaveNoCycles() {
        JavaClasses classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS).importPackages("io.sluice.filter");
        assertThat(classes.contain(RateLimitFilter.class)).as("this module's classes were read").isTrue();
        slices().matching("io.sluice.(**)").should().beFreeOfCycles().check(classes);
    }
}
