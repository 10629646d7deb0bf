package io.sluice.cdi.internal;

import io.sluice.core.StoreHealth;
import io.sluice.core.config.ConfigException;
import io.sluice.http.Parameters;
import io.sluice.http.StoreHealthReport;
import java.util.List;
import java.util.Map;

/**
 * Sluice's readiness check without a type of MicroProfile Health (those are {@code SluiceReadiness}'s, loaded only when
 * the API is present): the {@link StoreHealthReport} of the engines of the application's front doors, configured by
 * parameter {@value #PARAMETER} (system property {@code sluice.readiness-on-store-failure}, environment variable
 * {@code SLUICE_READINESS_ON_STORE_FAILURE} or MicroProfile Config).
 */
public final class StoreReadiness {

    /** The parameter that turns readiness DOWN while a store fails: {@value}. */
    static final String PARAMETER = StoreHealthReport.PARAMETER;
    /** The MicroProfile Health class whose presence is checked before {@code SluiceReadiness} is touched: {@value}. */
    static final String HEALTH_CHECK_CLASS = "org.eclipse.microprofile.health.HealthCheck";

    private final StoreHealthReport report;

    private StoreReadiness(StoreHealthReport report) {
        this.report = report;
    }

    /**
     * @return the readiness {@code parameters} configure
     * @throws ConfigException naming the parameter, its source and its value when it is neither {@code up} nor
     *     {@code down}
     */
    static StoreReadiness configured(Parameters parameters) {
        return new StoreReadiness(StoreHealthReport.configured(parameters));
    }

    /**
     * @return the readiness of the default parameters: system properties, environment, MicroProfile Config; public for
     *     {@code sluice-quarkus}, which checks it at start-up as {@link SluiceExtension} does where a portable extension
     *     runs
     */
    public static StoreReadiness configured() {
        return configured(MicroProfileConfig.addTo(Parameters.of(Parameters.DEFAULT_PREFIX, Map.of(), "CDI")));
    }

    /** @return whether the MicroProfile Health API can be loaded by Sluice's class loader */
    public static boolean healthPresent() {
        try {
            Class.forName(HEALTH_CHECK_CLASS, false, StoreReadiness.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** @return whether the application is ready ({@link StoreHealthReport#up}) */
    boolean up(List<StoreHealth> stores) {
        return report.up(stores);
    }

    /** @return the data of the check ({@link StoreHealthReport#data}) */
    Map<String, Object> data(List<StoreHealth> stores) {
        return report.data(stores);
    }
}
