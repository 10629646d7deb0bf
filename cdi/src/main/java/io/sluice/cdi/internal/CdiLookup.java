package io.sluice.cdi.internal;

import io.sluice.http.spi.RuntimeIntegration;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.CDI;

/** Looks up {@link SluiceBeans} in the running container; loaded only when CDI is on the class path. */
final class CdiLookup {

    private static final System.Logger LOG = System.getLogger(CdiIntegrationProvider.class.getName());

    private CdiLookup() {}

    static RuntimeIntegration find() {
        CDI<Object> cdi;
        try {
            cdi = CDI.current();
        } catch (IllegalStateException noContainer) {
            LOG.log(System.Logger.Level.DEBUG, "CDI API present but no container is running; CDI not used");
            return null;
        }
        Instance<SluiceBeans> beans = cdi.select(SluiceBeans.class);
        if (!beans.isResolvable()) {
            LOG.log(System.Logger.Level.WARNING, "CDI is running but Sluice's extension is not registered in it "
                    + "(" + SluiceExtension.class.getName() + "); produced configuration is not used");
            return null;
        }
        return beans.get();
    }
}
