package io.sluice.spring;

import io.sluice.http.FrontDoor;
import io.sluice.http.Parameters;
import io.sluice.http.StoreHealthReport;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.ConfigurableEnvironment;

/** The health indicator and the endpoint, each when the application has its part of Spring Boot. */
@Configuration(proxyBeanMethods = false)
class SluiceActuatorConfiguration {

    /** {@link SluiceHealthIndicator}, with Spring Boot's health module ({@code spring-boot-health}). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    static class Health {

        /** @return the indicator, named {@code sluice} (its bean name without the suffix) */
        @Bean
        @ConditionalOnMissingBean
        SluiceHealthIndicator sluiceHealthIndicator(FrontDoor door, ConfigurableEnvironment environment) {
            return new SluiceHealthIndicator(door, StoreHealthReport.configured(SpringParameters.of(environment)));
        }
    }

    /** {@link SluiceEndpoint}, with Actuator ({@code spring-boot-actuator}). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.web.annotation.WebEndpoint")
    static class Endpoint {

        /** @return the endpoint {@code sluice}, inspect and reset for role {@code sluice.admin-role} */
        @Bean
        @ConditionalOnMissingBean
        SluiceEndpoint sluiceEndpoint(FrontDoor door, ConfigurableEnvironment environment) {
            Parameters parameters = SpringParameters.of(environment);
            return new SluiceEndpoint(door, StoreHealthReport.configured(parameters), AdminRole.configured(parameters));
        }
    }
}
