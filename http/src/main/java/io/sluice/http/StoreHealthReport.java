package io.sluice.http;

import io.sluice.core.Rule;
import io.sluice.core.StoreHealth;
import io.sluice.core.config.ConfigException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What a readiness or health check answers of the stores of an application's front doors ({@link StoreHealth}), for
 * every runtime's check alike (MicroProfile Health's, Spring Boot's, Quarkus's): one status and its data.
 *
 * <p>UP by default whatever the store does: when Redis is down it is down for every node at once, and a probe that took
 * every node out of the load balancer would turn fail-open into an outage, refusing even the requests that rules allow
 * meanwhile. The data says the store is failing, since when, and which rules answer by which failure mode, for the
 * operator and the alerts. With parameter {@value #PARAMETER} set to {@code down}, it is DOWN while a store fails: for
 * a fleet that routes to another region then.
 */
public final class StoreHealthReport {

    /** The parameter that turns the status DOWN while a store fails: {@value}. */
    public static final String PARAMETER = "readiness-on-store-failure";

    private final boolean downOnFailure;

    private StoreHealthReport(boolean downOnFailure) {
        this.downOnFailure = downOnFailure;
    }

    /**
     * @return the report {@code parameters} configure
     * @throws ConfigException naming the parameter, its source and its value when it is neither {@code up} nor
     *     {@code down}
     */
    public static StoreHealthReport configured(Parameters parameters) {
        Parameters.Parameter p = parameters.get(PARAMETER);
        String value = p == null ? "up" : p.value().toLowerCase(Locale.ROOT);
        if (!value.equals("up") && !value.equals("down")) {
            throw new ConfigException(p.source(), p.value(), "expected up (the default: ready while the rules answer "
                    + "by their failure modes) or down (not ready while the store fails)");
        }
        return new StoreHealthReport(value.equals("down"));
    }

    /** @return whether the application is ready: always, unless configured {@code down} and a store fails */
    public boolean up(List<StoreHealth> stores) {
        return !downOnFailure || stores.stream().allMatch(StoreHealth::up);
    }

    /**
     * @return the data of the check: {@code store} ({@code up}, {@code failing}, or {@code none} before any front door
     *     opened), and while a store fails {@code failingSince} (the earliest), {@code allow}, {@code deny} and
     *     {@code local} (the rules answering so, comma-separated, for the modes that have some) and
     *     {@code outageDecisions}; {@code readinessOnStoreFailure} always
     */
    public Map<String, Object> data(List<StoreHealth> stores) {
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
