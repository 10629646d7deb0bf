package io.sluice.spring;

import io.sluice.core.Rule;
import io.sluice.core.StoreHealth;
import io.sluice.core.config.ConfigException;
import io.sluice.http.Parameters;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The health of the front door's store as the health indicator and the endpoint tell it, with the policy of the CDI
 * readiness check: UP by default whatever the store does (when Redis is down it is down for every node at once, and
 * taking every node out of the load balancer would turn fail-open into an outage); DOWN while the store fails with
 * parameter {@value #PARAMETER} set to {@code down}.
 */
final class StoreStatus {

    /** The parameter that turns the health DOWN while the store fails: {@value}. */
    static final String PARAMETER = "readiness-on-store-failure";

    private final boolean downOnFailure;

    private StoreStatus(boolean downOnFailure) {
        this.downOnFailure = downOnFailure;
    }

    /** @throws ConfigException naming the parameter, its source and its value when it is neither up nor down */
    static StoreStatus configured(Parameters parameters) {
        Parameters.Parameter p = parameters.get(PARAMETER);
        String value = p == null ? "up" : p.value().toLowerCase(Locale.ROOT);
        if (!value.equals("up") && !value.equals("down")) {
            throw new ConfigException(p.source(), p.value(), "expected up (the default: healthy while the rules answer "
                    + "by their failure modes) or down (not healthy while the store fails)");
        }
        return new StoreStatus(value.equals("down"));
    }

    /** @return whether the application is healthy: always, unless configured {@code down} and the store fails */
    boolean up(StoreHealth health) {
        return !downOnFailure || health.up();
    }

    /**
     * @return {@code store} ({@code up} or {@code failing}), and while it fails {@code failingSince}, {@code allow},
     *     {@code deny} and {@code local} (the rules answering so, for the modes that have some) and
     *     {@code outageDecisions}; {@code readinessOnStoreFailure} always
     */
    Map<String, Object> details(StoreHealth health) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("store", health.up() ? "up" : "failing");
        if (!health.up()) {
            long since = health.failingSinceMicros();
            data.put("failingSince", Instant.ofEpochSecond(Math.floorDiv(since, 1_000_000),
                    Math.floorMod(since, 1_000_000) * 1_000L).toString());
            for (Rule.FailureMode mode : Rule.FailureMode.values()) {
                if (!health.failing(mode).isEmpty()) {
                    data.put(mode.name().toLowerCase(Locale.ROOT), String.join(", ", health.failing(mode)));
                }
            }
            data.put("outageDecisions", health.outageDecisions());
        }
        data.put("readinessOnStoreFailure", downOnFailure ? "down" : "up");
        return data;
    }
}
