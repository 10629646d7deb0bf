package io.sluice.cdi.internal;

import io.sluice.core.Rule;
import io.sluice.core.StoreHealth;
import io.sluice.core.config.ConfigException;
import io.sluice.http.Parameters;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What Sluice's readiness check answers, without a type of MicroProfile Health (those are {@code SluiceReadiness}'s,
 * loaded only when the API is present): the {@link StoreHealth} of the engines of the application's front doors, as
 * one status and its data.
 *
 * <p>UP by default whatever the store does: when Redis is down it is down for every node at once, and a readiness
 * probe that took every node out of the load balancer would turn fail-open into an outage, refusing even the requests
 * that rules allow meanwhile. The data says the store is failing, since when, and which rules answer by which failure
 * mode, for the operator and the alerts. With parameter {@value #PARAMETER} set to {@code down} (system property
 * {@code sluice.readiness-on-store-failure}, environment variable {@code SLUICE_READINESS_ON_STORE_FAILURE} or
 * MicroProfile Config), it is DOWN while a store fails: for a fleet that routes to another region then.
 */
public final class StoreReadiness {

    /** The parameter that turns readiness DOWN while a store fails: {@value}. */
    static final String PARAMETER = "readiness-on-store-failure";
    /** The MicroProfile Health class whose presence is checked before {@code SluiceReadiness} is touched: {@value}. */
    static final String HEALTH_CHECK_CLASS = "org.eclipse.microprofile.health.HealthCheck";

    private final boolean downOnFailure;

    private StoreReadiness(boolean downOnFailure) {
        this.downOnFailure = downOnFailure;
    }

    /**
     * @return the readiness {@code parameters} configure
     * @throws ConfigException naming the parameter, its source and its value when it is neither {@code up} nor
     *     {@code down}
     */
    static StoreReadiness configured(Parameters parameters) {
        Parameters.Parameter p = parameters.get(PARAMETER);
        String value = p == null ? "up" : p.value().toLowerCase(Locale.ROOT);
        if (!value.equals("up") && !value.equals("down")) {
            throw new ConfigException(p.source(), p.value(), "expected up (the default: ready while the rules answer "
                    + "by their failure modes) or down (not ready while the store fails)");
        }
        return new StoreReadiness(value.equals("down"));
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

    /** @return whether the application is ready: always, unless configured {@code down} and a store fails */
    boolean up(List<StoreHealth> stores) {
        return !downOnFailure || stores.stream().allMatch(StoreHealth::up);
    }

    /**
     * @return the data of the check: {@code store} ({@code up}, {@code failing}, or {@code none} before any front door
     *     opened), and while a store fails {@code failingSince} (the earliest), {@code allow}, {@code deny} and
     *     {@code local} (the rules answering so, comma-separated, for the modes that have some) and
     *     {@code outageDecisions}; {@code readinessOnStoreFailure} always
     */
    Map<String, Object> data(List<StoreHealth> stores) {
        Map<String, Object> data = new LinkedHashMap<>();
        List<StoreHealth> failing = stores.stream().filter(h -> !h.up()).toList();
        data.put("store", stores.isEmpty() ? "none" : failing.isEmpty() ? "up" : "failing");
        if (!failing.isEmpty()) {
            long since = failing.stream().mapToLong(StoreHealth::failingSinceMicros).min().getAsLong();
            data.put("failingSince", Instant.ofEpochSecond(Math.floorDiv(since, 1_000_000),
                    Math.floorMod(since, 1_000_000) * 1_000L).toString());
            for (Rule.FailureMode mode : Rule.FailureMode.values()) {
                Set<String> names = new LinkedHashSet<>();
                failing.forEach(h -> names.addAll(h.failing(mode)));
                if (!names.isEmpty()) {
                    data.put(mode.name().toLowerCase(Locale.ROOT), String.join(", ", names));
                }
            }
            data.put("outageDecisions", failing.stream().mapToLong(StoreHealth::outageDecisions).sum());
        }
        data.put("readinessOnStoreFailure", downOnFailure ? "down" : "up");
        return data;
    }
}
