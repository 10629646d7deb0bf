package io.sluice.jaxrs;

import io.sluice.core.Decision;
import io.sluice.core.http.FrontDoor;
import io.sluice.core.http.Reply;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.ext.WriterInterceptor;
import jakarta.ws.rs.ext.WriterInterceptorContext;
import java.io.IOException;
import java.util.List;

/**
 * Adds the rate-limit headers to an allowed response, and releases the request's concurrency leases (and charges the
 * rules that count by outcome for its status) when the response is done: after the entity is written (as a {@link WriterInterceptor}), or at once when there is none.
 * Registered by {@link RateLimitFeature} at priority {@value RateLimitFeature#PRIORITY}.
 *
 * <p>A response that never reaches the filters (an exception no mapper handles) leaves its leases to expire on their
 * own (the policy's lease timeout).
 */
public final class RateLimitResponseFilter implements ContainerResponseFilter, WriterInterceptor {

    /** What the request filter left for the response: the headers to add and the decision whose leases to release. */
    record Pending(List<Reply.Header> headers, Decision decision, io.sluice.core.RequestView view) {}

    /** The response status, for the rules that count by outcome, charged when the entity is written. */
    static final String STATUS = RateLimitResponseFilter.class.getName() + ".status";

    private final FrontDoor door;

    RateLimitResponseFilter(FrontDoor door) {
        this.door = door;
    }

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
        if (!(request.getProperty(RateLimitRequestFilter.PENDING) instanceof Pending pending)) {
            return;
        }
        pending.headers().forEach(h -> response.getHeaders().add(h.name(), h.value()));
        if (!response.hasEntity()) {
            request.removeProperty(RateLimitRequestFilter.PENDING);
            door.completed(pending.view(), pending.decision(), response.getStatus());
        } else {
            request.setProperty(STATUS, response.getStatus());
        }
    }

    @Override
    public void aroundWriteTo(WriterInterceptorContext context) throws IOException {
        try {
            context.proceed();
        } finally {
            if (context.getProperty(RateLimitRequestFilter.PENDING) instanceof Pending pending) {
                context.removeProperty(RateLimitRequestFilter.PENDING);
                door.completed(pending.view(), pending.decision(),
                        context.getProperty(STATUS) instanceof Integer status ? status : 200);
            }
        }
    }
}
