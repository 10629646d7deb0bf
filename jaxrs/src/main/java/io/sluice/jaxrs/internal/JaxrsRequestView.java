package io.sluice.jaxrs.internal;

import io.sluice.core.request.RequestView;
import io.sluice.core.internal.QueryStrings;
import jakarta.ws.rs.container.ContainerRequestContext;
import java.security.Principal;
import java.util.List;
import java.util.Locale;

/**
 * A JAX-RS request as the engine sees it, identical to what the servlet filter sees of the same request: the path and
 * the client address are the {@link RequestOrigin}'s (in a servlet container the servlet path plus path info, the path
 * inside the application, so rules-file globs match the same way in both front doors, and the servlet request's
 * address), and the query is read from the raw query string. The principal is the JAX-RS {@code SecurityContext}'s,
 * so an authentication filter at {@code Priorities.AUTHENTICATION} sets it; attributes are request properties (servlet
 * request attributes in a servlet container).
 */
final class JaxrsRequestView implements RequestView {

    private final ContainerRequestContext request;
    private final RequestOrigin origin;

    JaxrsRequestView(ContainerRequestContext request, RequestOrigin origin) {
        this.request = request;
        this.origin = origin;
    }

    @Override
    public String method() {
        return request.getMethod().toUpperCase(Locale.ROOT);
    }

    @Override
    public String path() {
        return origin.path();
    }

    @Override
    public String header(String name) {
        return request.getHeaders().getFirst(name);
    }

    @Override
    public List<String> headers(String name) {
        List<String> values = request.getHeaders().get(name);
        return values == null ? List.of() : values;
    }

    @Override
    public String remoteAddress() {
        return origin.remoteAddress();
    }

    @Override
    public String principal() {
        Principal p = request.getSecurityContext() == null ? null : request.getSecurityContext().getUserPrincipal();
        return p == null ? null : p.getName();
    }

    @Override
    public boolean isUserInRole(String role) {
        return request.getSecurityContext() != null && request.getSecurityContext().getUserPrincipal() != null
                && request.getSecurityContext().isUserInRole(role);
    }

    @Override
    public Object attribute(String name) {
        return request.getProperty(name);
    }

    @Override
    public String queryParameter(String name) {
        return QueryStrings.parameter(request.getUriInfo().getRequestUri().getRawQuery(), name);
    }
}
