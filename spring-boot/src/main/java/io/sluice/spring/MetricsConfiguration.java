package io.sluice.spring;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Sluice's metrics in the application's {@link MeterRegistry} (Spring Boot's, with Actuator), when Micrometer and
 * {@code sluice-micrometer} are on the class path: loaded only then.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = {"io.micrometer.core.instrument.MeterRegistry", "io.sluice.micrometer.MicrometerMetrics"})
class MetricsConfiguration {

    /** @return the metrics of the application's one (or primary) registry; none (null) when it has none */
    @Bean
    SluiceMetrics sluiceMetrics(ObjectProvider<MeterRegistry> registries) {
        MeterRegistry registry = registries.getIfUnique();
        return registry == null ? null : new MicrometerBinding(registry);
    }
}
