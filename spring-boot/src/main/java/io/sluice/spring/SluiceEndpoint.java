package io.sluice.spring;

import io.sluice.core.Operations;
import io.sluice.core.Rule;
import io.sluice.core.policy.Outcome;
import io.sluice.http.Administration;
import io.sluice.http.FrontDoor;
import io.sluice.http.RuleOrigin;
import io.sluice.http.StoreHealthReport;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.WebEndpoint;

/**
 * The Actuator web endpoint {@code /actuator/sluice}, over {@link Administration}: exposed, and secured, as the
 * application's Actuator exposes and secures its endpoints ({@code management.endpoints.web.exposure.include}; with
 * Spring Security, its rules for {@code EndpointRequest.to("sluice")}). Inspect and reset also need an authenticated
 * caller in role {@code sluice.admin-role} ({@link AdminRole}), else answer 403, as the admin servlet does: the rules
 * and the store's health are the application's configuration, a key's use is its user's, and a reset lifts a limit.
 *
 * <ul>
 *   <li>{@code GET /actuator/sluice}: the store's health and failure modes, the rules in force with where each comes
 *       from, and the shared settings in force;</li>
 *   <li>{@code GET /actuator/sluice/{rule}/{key}}: the state of a key under a rule, without consuming (404 for a rule
 *       not in force);</li>
 *   <li>{@code DELETE /actuator/sluice/{rule}/{key}}: resets (unblocks) the key on every node sharing the store, and
 *       records it in the audit trail with the caller's principal (404 for a rule not in force).</li>
 * </ul>
 */
@WebEndpoint(id = "sluice")
public final class SluiceEndpoint {

    /** The answer to a caller not in the role. */
    static final int STATUS_FORBIDDEN = 403;

    private final FrontDoor door;
    private final StoreHealthReport status;
    private final AdminRole role;

    SluiceEndpoint(FrontDoor door, StoreHealthReport status, AdminRole role) {
        this.door = door;
        this.status = status;
        this.role = role;
    }

    /** @return the store's health, the rules in force and the shared settings */
    @ReadOperation
    public Map<String, Object> status() {
        Administration admin = door.admin();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("health", status.data(List.of(admin.storeHealth())));
        Map<String, RuleOrigin> origins = admin.ruleOrigins();
        List<Map<String, Object>> rules = new ArrayList<>();
        for (Rule r : admin.rulesInForce()) {
            Map<String, Object> rule = new LinkedHashMap<>();
            rule.put("name", r.name());
            rule.put("limit", r.policy().toString());
            rule.put("mode", r.mode().name().toLowerCase(Locale.ROOT));
            rule.put("onStoreFailure", r.onStoreFailure().name().toLowerCase(Locale.ROOT));
            RuleOrigin origin = origins.get(r.name());
            rule.put("origin", origin == null ? "annotation" : origin.id());
            rules.add(rule);
        }
        out.put("rules", rules);
        Operations.Status shared = admin.status();
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put("version", shared.version());
        settings.put("documentVersion", shared.documentVersion());
        settings.put("overrides", shared.overrides());
        if (shared.rejection() != null) {
            settings.put("rejectedVersion", shared.rejectedVersion());
            settings.put("rejection", shared.rejection());
        }
        out.put("shared", settings);
        return out;
    }

    /**
     * @return the state of {@code key} under the rule named {@code rule}; 404 when no rule has that name, 403 when the
     *     caller is not in the role
     */
    @ReadOperation
    public WebEndpointResponse<Map<String, Object>> inspect(@Selector String rule, @Selector String key,
            SecurityContext caller) {
        if (!role.permits(caller.getPrincipal(), caller::isUserInRole)) {
            return forbidden();
        }
        Outcome o = door.inspect(rule, key, null);
        if (o == null) {
            return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("rule", rule);
        out.put("key", key);
        out.put("allowed", o.allowed());
        out.put("limit", o.limit());
        out.put("remaining", o.remaining());
        out.put("resetAfterMillis", o.resetAfterMicros() == Outcome.NEVER ? -1 : o.resetAfterMicros() / 1_000);
        return new WebEndpointResponse<>(out);
    }

    /**
     * @return what was reset, recorded in the audit trail with the caller's name; 404 when no rule has that name, 403
     *     when the caller is not in the role
     */
    @DeleteOperation
    public WebEndpointResponse<Map<String, Object>> reset(@Selector String rule, @Selector String key,
            SecurityContext caller) {
        if (!role.permits(caller.getPrincipal(), caller::isUserInRole)) {
            return forbidden();
        }
        if (!door.admin().reset(rule, key, caller.getPrincipal().getName() + " (actuator)")) {
            return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
        }
        return new WebEndpointResponse<>(Map.of("rule", rule, "key", key, "reset", true));
    }

    private WebEndpointResponse<Map<String, Object>> forbidden() {
        return new WebEndpointResponse<>(Map.of("error", "inspecting and resetting keys needs an authenticated caller "
                + "in role " + role.name() + " (sluice." + AdminRole.PARAMETER + ")"), STATUS_FORBIDDEN);
    }
}
