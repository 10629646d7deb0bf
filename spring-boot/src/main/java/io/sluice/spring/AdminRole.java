package io.sluice.spring;

import io.sluice.core.config.ConfigException;
import io.sluice.http.Parameters;
import java.security.Principal;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * The role a caller needs for the endpoint's operations on keys (inspect and reset), as the admin servlet's
 * {@code role}: {@code sluice.admin-role}, default {@value #DEFAULT}. Whoever reaches the endpoint has passed the
 * application's security (its {@code SecurityFilterChain} for the management paths); a rate limit is also a limit on
 * that application's own users, so reaching it is not enough to unblock a key or watch another caller's use: the
 * caller must be authenticated and in this role ({@code HttpServletRequest.isUserInRole}: with Spring Security, the
 * authority {@code ROLE_} and the role, as {@code hasRole} checks).
 */
final class AdminRole {

    /** The parameter naming the role: {@value}. */
    static final String PARAMETER = "admin-role";
    /** The role when {@code sluice.admin-role} is not set: {@value}, the admin servlet's. */
    static final String DEFAULT = "sluice-admin";

    private final String role;

    private AdminRole(String role) {
        this.role = role;
    }

    /**
     * @throws ConfigException naming the parameter, its source and its value when it is empty, {@code *} or
     *     {@code **} ({@code isUserInRole("**")} is true for any authenticated user of a servlet container)
     */
    static AdminRole configured(Parameters parameters) {
        Parameters.Parameter p = parameters.get(PARAMETER);
        if (p == null) {
            return new AdminRole(DEFAULT);
        }
        String role = p.value().trim();
        if (role.isEmpty() || role.equals("*") || role.equals("**")) {
            throw new ConfigException(p.source(), p.value(), "expected the role of the operators who may inspect and "
                    + "reset keys (default " + DEFAULT + "); \"*\" and \"**\" would let any authenticated user do it");
        }
        return new AdminRole(role);
    }

    /**
     * @param principal the caller, null when not authenticated
     * @param inRole whether the caller is in a role ({@code isUserInRole})
     * @return whether the caller is authenticated and in the role
     */
    boolean permits(@Nullable Principal principal, Predicate<String> inRole) {
        return principal != null && inRole.test(role);
    }

    /** @return the role */
    String name() {
        return role;
    }
}
