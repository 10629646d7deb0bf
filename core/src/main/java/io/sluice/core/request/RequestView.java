package io.sluice.core.request;

import java.util.List;

/**
 * What the engine sees of an HTTP request. The servlet filter and the JAX-RS filter each adapt their request to
 * this; nothing in core knows either API.
 */
public interface RequestView {

    /** @return the HTTP method, upper case */
    String method();

    /** @return the path inside the application (no context path), starting with {@code /} */
    String path();

    /** @return the first value of header {@code name} (case-insensitive), or null */
    String header(String name);

    /** @return every value of header {@code name} in order, possibly empty */
    List<String> headers(String name);

    /** @return the socket peer's address (an IP literal) */
    String remoteAddress();

    /** @return the authenticated principal's name, or null */
    String principal();

    /**
     * @param role a container role, as {@code HttpServletRequest.isUserInRole} and JAX-RS's {@code SecurityContext} know
     *     it
     * @return whether the authenticated user has {@code role}; false when nobody is authenticated (the default, for
     *     views that know no roles)
     */
    default boolean isUserInRole(String role) {
        return false;
    }

    /** @return request attribute {@code name} (set by an earlier filter, such as a tenant), or null */
    Object attribute(String name);

    /**
     * @return the first value of query parameter {@code name}, or null when the query has none; never null for a value
     *     that is there but unreadable ({@link io.sluice.core.internal.QueryStrings} answers its constants), or a rule
     *     keyed on it would skip the request
     */
    String queryParameter(String name);

    /** @return a builder of a view, for the programmatic API and tests */
    static SimpleRequestView.Builder builder(String method, String path) {
        return new SimpleRequestView.Builder(method, path);
    }
}
