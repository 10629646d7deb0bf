package io.sluice.spring;

import io.sluice.core.key.KeyResolver;
import io.sluice.http.FrontDoor;
import io.sluice.jaxrs.internal.MethodRules;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/**
 * {@code @RateLimit} on Spring MVC handler methods ({@link RateLimitInterceptor}), with Spring MVC: every handler's
 * annotations are read at start-up, so an invalid one, or a reference to a rule the rules file lacks, stops it naming
 * the method and the attribute.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = "org.springframework.web.servlet.config.annotation.WebMvcConfigurer")
class SluiceWebMvcConfiguration {

    @Bean
    RateLimitInterceptor sluiceRateLimitInterceptor(FrontDoor door, ListableBeanFactory beans,
            ConfigurableEnvironment environment) {
        return new RateLimitInterceptor(door, beans.getBeansOfType(KeyResolver.class), environment::getProperty);
    }

    @Bean
    WebMvcConfigurer sluiceRateLimitInterceptorRegistration(RateLimitInterceptor interceptor) {
        return new WebMvcConfigurer() {
            @Override
            public void addInterceptors(InterceptorRegistry registry) {
                registry.addInterceptor(interceptor);
            }
        };
    }

    /** Reads every handler's annotations once the handler mappings know them: at start-up, not at a first request. */
    @Bean
    SmartInitializingSingleton sluiceRateLimitAnnotationCheck(RateLimitInterceptor interceptor, FrontDoor door,
            ListableBeanFactory beans) {
        return () -> {
            for (RequestMappingHandlerMapping mapping : beans.getBeansOfType(RequestMappingHandlerMapping.class)
                    .values()) {
                for (HandlerMethod handler : mapping.getHandlerMethods().values()) {
                    MethodRules rules = interceptor.rulesOf(handler);
                    rules.checkReferences(door.rules());
                }
            }
        };
    }
}
