package io.sluice.http;

import io.sluice.core.request.RequestMatcher;
import io.sluice.core.request.RequestView;
import io.sluice.core.Rule;
import io.sluice.core.config.ConfigException;
import io.sluice.core.key.Cidr;
import io.sluice.core.key.ClientIpResolver;
import io.sluice.core.key.KeyResolvers;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Requests that are never limited: clients whose IP lies in one of {@code addresses}, and users who have one of
 * {@code roles}, bypass every rule, and a rule skips a request whose key under that rule is one of {@code keys} (an API
 * key of the monitoring system, say).
 *
 * @param addresses client address blocks that are never limited
 * @param keys key values that no rule limits, in the form resolvers give them ({@link KeyResolvers#normalized}: a key
 *     over 64 characters as its hash); the rules file's {@code allowlist.keys} are normalized when read
 * @param roles container roles whose users are never limited ({@link RequestView#isUserInRole}: the servlet request's
 *     or the JAX-RS {@code SecurityContext}'s)
 */
public record Allowlist(List<Cidr> addresses, Set<String> keys, Set<String> roles) {

    /** Nothing is allowlisted. */
    public static final Allowlist NONE = new Allowlist(List.of(), Set.of(), Set.of());

    public Allowlist {
        addresses = List.copyOf(addresses);
        keys = Set.copyOf(keys);
        roles = Set.copyOf(roles);
        roles.forEach(role -> checkRole("allowlist roles", role));
    }

    /**
     * @param parameter where the role was configured, as errors name it
     * @throws ConfigException for a blank role, or {@code *} and {@code **}, which a servlet container reads as any
     *     role or any authenticated user
     */
    static void checkRole(String parameter, String role) {
        if (role.isBlank() || role.equals("*") || role.equals("**")) {
            throw new ConfigException(parameter, role, "expected role names such as \"ops\", not a blank one; \"*\""
                    + " and \"**\" mean any role or any authenticated user to a servlet container, which would let"
                    + " every logged-in user bypass every rule");
        }
    }

    /** Addresses and keys, no roles. */
    public Allowlist(List<Cidr> addresses, Set<String> keys) {
        this(addresses, keys, Set.of());
    }

    /**
     * @param ips how the client's IP is found (resolved only when addresses are listed)
     * @return whether {@code request} bypasses every rule: its client's IP or one of its user's roles is listed
     */
    public boolean bypasses(RequestView request, ClientIpResolver ips) {
        if (!addresses.isEmpty() && containsAddress(ips.resolve(request))) {
            return true;
        }
        for (String role : roles) {
            if (request.isUserInRole(role)) {
                return true;
            }
        }
        return false;
    }

    /** @return whether a client IP (as {@link io.sluice.core.key.ClientIpResolver} resolves it) is never limited */
    public boolean containsAddress(String clientIp) {
        if (clientIp == null) {
            return false;
        }
        for (Cidr c : addresses) {
            if (c.contains(clientIp)) {
                return true;
            }
        }
        return false;
    }

    /** @return {@code rule}, skipping requests whose key under it is allowlisted; {@code rule} itself when no key is */
    public Rule applyTo(Rule rule) {
        if (keys.isEmpty()) {
            return rule;
        }
        RequestMatcher matcher = rule.matcher();
        RequestMatcher unlessAllowed = request -> {
            if (!matcher.matches(request)) {
                return false;
            }
            String key = rule.resolveKey(request);
            return key == null || !keys.contains(key);
        };
        return new Rule(rule.name(), unlessAllowed, rule.key(), rule.policy(), rule.tiers(), rule.cost(), rule.mode(),
                rule.onStoreFailure(), rule.onMissingKey(), rule.countStatuses(), rule.denialCache());
    }

    /** @return the allowlist of both */
    public Allowlist and(Allowlist other) {
        if (other.equals(NONE)) {
            return this;
        }
        List<Cidr> a = new ArrayList<>(addresses);
        a.addAll(other.addresses);
        Set<String> k = new HashSet<>(keys);
        k.addAll(other.keys);
        Set<String> r = new HashSet<>(roles);
        r.addAll(other.roles);
        return new Allowlist(a, k, r);
    }
}
