package io.sluice.spring;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The starter's main classes: each optional dependency (Micrometer, Jedis, Spring Boot's health module, Actuator,
 * Spring MVC) is named only by the classes that Spring loads when it is on the class path, behind a
 * {@code @ConditionalOnClass}, so an application without it starts; and nothing names CDI.
 */
class ArchitectureTest {

    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS).importPackages("io.sluice.spring");
        assertThat(classes.contain(SluiceAutoConfiguration.class)).as("this module's classes were read").isTrue();
    }

    @Test
    void onlyTheMetricsClassesNameMicrometer() {
        noClasses().that().doNotHaveSimpleName("MicrometerBinding").and().doNotHaveSimpleName("MetricsConfiguration")
                .should().dependOnClassesThat().resideInAnyPackage("io.micrometer..", "io.sluice.micrometer..")
                .check(classes);
    }

    @Test
    void onlyTheRedisConfigurationNamesJedis() {
        noClasses().that().doNotHaveSimpleName("RedisClientConfiguration")
                .should().dependOnClassesThat().resideInAnyPackage("redis.clients..", "io.sluice.redis..")
                .check(classes);
    }

    @Test
    void onlyTheActuatorClassesNameActuator() {
        noClasses().that().doNotHaveSimpleName("SluiceHealthIndicator").and().doNotHaveSimpleName("SluiceEndpoint")
                .should().dependOnClassesThat().resideInAnyPackage("org.springframework.boot.health..",
                        "org.springframework.boot.actuate..")
                .check(classes);
    }

    @Test
    void onlyTheWebMvcClassesNameSpringMvc() {
        noClasses().that()
                .haveNameNotMatching("io\\.sluice\\.spring\\.(RateLimitInterceptor|SluiceWebMvcConfiguration)(\\$.*)?")
                .should().dependOnClassesThat().resideInAnyPackage("org.springframework.web..")
                .check(classes);
    }

    @Test
    void nothingNamesCdi() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("jakarta.enterprise..", "io.sluice.cdi..")
                .check(classes);
    }
}
