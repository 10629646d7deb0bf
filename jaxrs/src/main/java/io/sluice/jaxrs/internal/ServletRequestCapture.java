package io.sluice.jaxrs.internal;

import jakarta.enterprise.inject.Vetoed;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.Context;

/**
 * Hands what the servlet request knows to {@link RateLimitRequestFilter}, as a {@link RequestOrigin} request property.
 * Registered by class, one priority before it ({@code RateLimitFeature.PRIORITY - 1}), because JAX-RS runtimes inject
 * {@code @Context} only into providers they instantiate themselves (not into instances a feature registers, nor, in
 * RESTEasy, into features); only when the servlet API is on the class path. Without a servlet request (Quarkus REST,
 * with the servlet API on the class path all the same) it does nothing: the runtime's own filter sets the origin.
 * {@code @Vetoed}: never a CDI bean, which Quarkus REST would make of it, injecting a servlet request it does not have.
 */
@Vetoed
public final class ServletRequestCapture implements ContainerRequestFilter {

    @Context
    private HttpServletRequest servlet;

    @Override
    public void filter(ContainerRequestContext request) {
        if (servlet == null) {
            return;
        }
        String servletPath = servlet.getServletPath();
        String pathInfo = servlet.getPathInfo();
        String path = (servletPath == null ? "" : servletPath) + (pathInfo == null ? "" : pathInfo);
        request.setProperty(RequestOrigin.PROPERTY, new RequestOrigin(path.isEmpty() ? "/" : path,
                servlet.getRemoteAddr()));
    }
}
