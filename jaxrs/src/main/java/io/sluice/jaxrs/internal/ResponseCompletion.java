package io.sluice.jaxrs.internal;

import jakarta.annotation.Priority;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.ext.WriterInterceptor;
import jakarta.ws.rs.ext.WriterInterceptorContext;
import java.io.IOException;

/**
 * Completes a request's {@link Completion} as soon as its response is done: once its entity is written (a streamed
 * entity holds its leases while it streams), or in the response filter when the response has no entity. Registered
 * by {@code RateLimitFeature} at priority {@value #PRIORITY}, the lowest there is: response filters run in descending
 * priority, so it runs after the application's response filters and sees the entity they leave (one may drop it, and
 * nothing would be written); writer interceptors nest in ascending priority, so it wraps the application's (one may
 * write the entity itself without calling {@code proceed}).
 *
 * <p>The priority is on the class too: Jersey takes a priority given at registration only when it is positive, and
 * otherwise the class's {@code @Priority}.
 *
 * <p>A response that never gets here (an exception that the implementation hands straight to the container, a filter
 * of the same lowest priority that drops the entity after this one ran) is completed by {@link RequestEnd} when the
 * servlet request ends.
 */
@Priority(ResponseCompletion.PRIORITY)
public final class ResponseCompletion implements ContainerResponseFilter, WriterInterceptor {

    /**
     * The priority of this filter and interceptor: {@value}, the lowest; published as
     * {@code RateLimitFeature.COMPLETION_PRIORITY}.
     */
    public static final int PRIORITY = Integer.MIN_VALUE;

    ResponseCompletion() {}

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        if (request.getProperty(Completion.PROPERTY) instanceof Completion completion) {
            completion.status(response.getStatus());
            if (!response.hasEntity()) {
                completion.complete(response.getStatus());
            }
        }
    }

    @Override
    public void aroundWriteTo(WriterInterceptorContext context) throws IOException {
        try {
            context.proceed();
        } finally {
            if (context.getProperty(Completion.PROPERTY) instanceof Completion completion) {
                completion.complete(500);       // the status noted by the filter, which ran before the writer
            }
        }
    }
}
