package io.sluice.jaxrs.internal;

import io.sluice.http.Reply;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import java.util.List;

/**
 * Adds the rate-limit headers to an allowed response, and a denial's {@code deny-headers} that the response does not
 * have yet. Registered by {@code RateLimitFeature} at priority {@value RateLimitRequestFilter#PRIORITY}. The request's
 * concurrency leases are released by {@link ResponseCompletion}, which runs after every application filter.
 */
public final class RateLimitResponseFilter implements ContainerResponseFilter {

    RateLimitResponseFilter() {}

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        if (request.getProperty(RateLimitRequestFilter.DENY_HEADERS) instanceof List<?> denyHeaders) {
            for (Object o : denyHeaders) {       // after the application's filters (a higher priority runs first)
                if (o instanceof Reply.Header h && response.getHeaderString(h.name()) == null) {
                    response.getHeaders().add(h.name(), h.value());
                }
            }
            return;
        }
        if (request.getProperty(RateLimitRequestFilter.HEADERS) instanceof List<?> headers) {
            for (Object o : headers) {
                if (o instanceof Reply.Header h) {
                    response.getHeaders().add(h.name(), h.value());
                }
            }
        }
    }
}
