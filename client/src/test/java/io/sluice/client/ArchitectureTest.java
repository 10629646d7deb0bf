package io.sluice.client;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The outbound module's shape, read from its byte code: it builds on the core alone (no server side, no store module:
 * the engine's store is whatever the application gives it), and only the JAX-RS filter names JAX-RS, so the
 * {@code HttpClient} wrapper runs without it.
 */
class ArchitectureTest {

    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.sluice.client");
    }

    @Test
    void theClientBuildsOnTheCoreAlone() {
        noClasses().that().resideInAPackage("io.sluice.client..")
                .should().dependOnClassesThat().resideInAnyPackage("io.sluice.http..", "io.sluice.filter..",
                        "io.sluice.jaxrs..", "io.sluice.cdi..", "io.sluice.redis..", "io.sluice.micrometer..",
                        "io.sluice.core.internal..", "jakarta.servlet..", "redis.clients..")
                .check(classes);
    }

    @Test
    void onlyTheFilterNamesJaxRs() {
        noClasses().that().resideInAPackage("io.sluice.client..")
                .and().haveNameNotMatching("io\\.sluice\\.client\\.SluiceClientFilter(\\$.*)?")
                .should().dependOnClassesThat().resideInAnyPackage("jakarta.ws.rs..")
                .check(classes);
    }
}
