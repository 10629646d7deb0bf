package io.sluice.core;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The core's shape, read from its byte code: framework-free, and its packages depend on each other one way
 * ({@code config} ← {@code policy} ← {@code algorithm} ← {@code store} ← {@code io.sluice.core}, and
 * {@code request} ← {@code key} ← {@code io.sluice.core}; {@code time} and {@code log} at the bottom).
 */
class ArchitectureTest {

    private static JavaClasses core;

    @BeforeAll
    static void importCore() {
        core = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.sluice.core");
    }

    @Test
    void theCorePackagesHaveNoCycles() {
        slices().matching("io.sluice.(**)").should().beFreeOfCycles().check(core);
    }

    @Test
    void theCoreNamesNoFrameworkAndNoOtherModule() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage(
                        "redis.clients..", "org.yaml..", "jakarta..", "javax.servlet..", "javax.ws..",
                        "io.micrometer..", "org.eclipse.microprofile..",
                        "io.sluice.redis..", "io.sluice.http..", "io.sluice.cdi..", "io.sluice.micrometer..",
                        "io.sluice.filter..", "io.sluice.jaxrs..")
                .check(core);
    }

    @Test
    void theModelKnowsNothingOfTheEngineOrTheStores() {
        noClasses().that().resideInAnyPackage("io.sluice.core.config..", "io.sluice.core.policy..",
                        "io.sluice.core.request..", "io.sluice.core.time..", "io.sluice.core.log..")
                .should().dependOnClassesThat().resideInAnyPackage("io.sluice.core", "io.sluice.core.store..",
                        "io.sluice.core.algorithm..", "io.sluice.core.key..")
                .check(core);
    }
}
