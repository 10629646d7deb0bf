package io.sluice.jaxrs.internal;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.Context;

/**
 * Hands the servlet request to {@link RateLimitRequestFilter} through a request property. Registered by class, one
 * priority before it ({@code RateLimitFeature.PRIORITY - 1}), because JAX-RS runtimes inject {@code @Context} only into
 * providers they instantiate themselves (not into instances a feature registers, nor, in RESTEasy, into features).
 */
public final class ServletRequestCapture implements ContainerRequestFilter {

    /** The request property holding the servlet request: {@value}. */
    static final String PROPERTY = "io.sluice.jaxrs.servlet-request";

    @Context
    private HttpServletRequest servlet;

    @Override
    public void filter(ContainerRequestContext request) {
        request.setProperty(PROPERTY, new JaxrsRequestView.Servlet(servlet.getServletPath(), servlet.getPathInfo(),
                servlet.getRemoteAddr()));
    }
}
