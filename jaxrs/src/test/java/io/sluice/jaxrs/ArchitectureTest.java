package io.sluice.jaxrs;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.equivalentTo;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.sluice.jaxrs.internal.JaxrsFront;
import jakarta.enterprise.inject.Vetoed;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The JAX-RS module's packages, read from its main classes (no jar, no test class): the API ({@code RateLimit},
 * {@code RateLimitFeature}, ...) builds on {@code internal}, which names no type of the API; the annotations reach it
 * as plain values, the priorities and the logger's name as its own constants. CDI and MicroProfile Config are reached
 * only through {@code io.sluice.http.spi}, which {@code sluice-cdi} implements.
 */
class ArchitectureTest {

    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS).importPackages("io.sluice.jaxrs");
        assertThat(classes.contain(RateLimitFeature.class) && classes.contain(JaxrsFront.class))
                .as("this module's classes were read").isTrue();
    }

    @Test
    void thePackagesHaveNoCycles() {
        slices().matching("io.sluice.(**)").should().beFreeOfCycles().check(classes);
    }

    @Test
    void theInternalsNameNoTypeOfTheApi() {
        noClasses().that().resideInAPackage("io.sluice.jaxrs.internal..")
                .should().dependOnClassesThat().resideInAPackage("io.sluice.jaxrs").check(classes);
    }

    /**
     * The one CDI type allowed is the annotation {@code @Vetoed} on {@code ServletRequestCapture} (Quarkus REST would
     * make a bean of it): an annotation the JVM skips where CDI is absent, which loads no CDI class.
     */
    @Test
    void theModuleNamesNoTypeOfTheCdiModuleNorOfCdiOrMicroProfile() {
        noClasses().that().resideInAPackage("io.sluice.jaxrs..").should().dependOnClassesThat(
                        resideInAnyPackage("io.sluice.cdi..", "jakarta.enterprise..", "jakarta.inject..",
                                "org.eclipse.microprofile..").and(not(equivalentTo(Vetoed.class))))
                .check(classes);
    }

    @Test
    void theFiltersLogUnderTheFeaturesName() {
        assertThat(JaxrsFront.LOGGER_NAME).isEqualTo(RateLimitFeature.class.getName());
    }
}
