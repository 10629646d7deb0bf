package io.sluice.cdi.internal;

import io.sluice.core.config.ConfigException;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.AfterDeploymentValidation;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.BeforeBeanDiscovery;
import jakarta.enterprise.inject.spi.Extension;

/**
 * Registers {@link SluiceBeans} with the container, so that Sluice's jar needs no {@code beans.xml}, and, when the
 * MicroProfile Health API is on the class path, the readiness check {@code SluiceReadiness} (whose parameter, checked
 * at deployment, fails it naming its value). Listed in
 * {@code META-INF/services/jakarta.enterprise.inject.spi.Extension}; a container-less servlet engine never reads that
 * file, so nothing of CDI is loaded there.
 */
public class SluiceExtension implements Extension {

    void register(@Observes BeforeBeanDiscovery discovery, BeanManager beans) {
        discovery.addAnnotatedType(beans.createAnnotatedType(SluiceBeans.class), SluiceBeans.class.getName());
        if (StoreReadiness.healthPresent()) {
            discovery.addAnnotatedType(beans.createAnnotatedType(SluiceReadiness.class),
                    SluiceReadiness.class.getName());
        }
    }

    void check(@Observes AfterDeploymentValidation validation) {
        if (StoreReadiness.healthPresent()) {
            try {
                StoreReadiness.configured();
            } catch (ConfigException e) {
                validation.addDeploymentProblem(e);
            }
        }
    }
}
