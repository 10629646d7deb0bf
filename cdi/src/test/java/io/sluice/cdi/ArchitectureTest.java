package io.sluice.cdi;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.sluice.cdi.internal.CdiIntegrationProvider;
import org.junit.jupiter.api.Test;

/**
 * The CDI integration's packages, read from its main classes (no jar, no test class): free of cycles, the arrow
 * pointing from {@code internal} (which fires the API's {@code RateLimitedEvent}) to the API, never back; and each
 * optional API (MicroProfile Config and Health, Micrometer) named by one class, which is loaded only once the API is
 * found, so that an application without it never loads a class that names it.
 */
class ArchitectureTest {

    private static JavaClasses classes() {
        JavaClasses classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS).importPackages("io.sluice.cdi");
        assertThat(classes.contain(CdiIntegrationProvider.class)).as("this module's classes were read").isTrue();
        return classes;
    }

    @Test
    void thePackagesHaveNoCycles() {
        slices().matching("io.sluice.(**)").should().beFreeOfCycles().check(classes());
    }

    @Test
    void eachOptionalApiIsNamedByOneClass() {
        JavaClasses classes = classes();
        String[][] apis = {{"org.eclipse.microprofile.health..", "io.sluice.cdi.internal.SluiceReadiness"},
                {"org.eclipse.microprofile.config..", "io.sluice.cdi.internal.MicroProfileLookup"},
                {"io.micrometer..", "io.sluice.cdi.internal.MicrometerLookup"}};
        for (String[] api : apis) {
            noClasses().that().doNotHaveFullyQualifiedName(api[1]).should().dependOnClassesThat()
                    .resideInAPackage(api[0]).check(classes);
        }
    }
}
