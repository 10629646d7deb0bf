package io.sluice.cdi.internal;

import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.BeforeBeanDiscovery;
import jakarta.enterprise.inject.spi.Extension;

/**
 * Registers {@link SluiceBeans} with the container, so that Sluice's jar needs no {@code beans.xml}. Listed in
 * {@code META-INF/services/jakarta.enterprise.inject.spi.Extension}; a container-less servlet engine never reads that
 * file, so nothing of CDI is loaded there.
 */
public class SluiceExtension implements Extension {

    void register(@Observes BeforeBeanDiscovery discovery, BeanManager beans) {
        discovery.addAnnotatedType(beans.createAnnotatedType(SluiceBeans.class), SluiceBeans.class.getName());
    }
}
