package io.sluice.jaxrs.internal;

import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletRequestEvent;
import jakarta.servlet.ServletRequestListener;
import jakarta.servlet.http.HttpServletResponse;

/**
 * Completes, when the servlet request ends, a {@link Completion} that {@link ResponseCompletion} did not: a response
 * that no JAX-RS filter or interceptor of Sluice's saw to its end (an exception the implementation handed to the
 * container, an application filter that dropped the entity after Sluice's last one). A request in asynchronous mode
 * ends with its async cycle ({@code AsyncResponse}, {@code CompletionStage}). {@code WebAppInitializer} registers it;
 * the status charged, unless a response filter saw one, is 500, what a container answers to an exception.
 */
public final class RequestEnd implements ServletRequestListener {

    /** For {@code WebAppInitializer}. */
    public RequestEnd() {}

    @Override
    public void requestDestroyed(ServletRequestEvent event) {
        ServletRequest request = event.getServletRequest();
        if (!(request.getAttribute(Completion.PROPERTY) instanceof Completion completion) || completion.done()) {
            return;
        }
        if (request.isAsyncStarted()) {
            try {
                request.getAsyncContext().addListener(new AtCycleEnd(completion));
                return;
            } catch (IllegalStateException cycleAlreadyOver) {
                // completed meanwhile: the request is over
            }
        }
        completion.complete(HttpServletResponse.SC_INTERNAL_SERVER_ERROR);
    }

    /** Completes when the async cycle does, and follows the request through further cycles. */
    private record AtCycleEnd(Completion completion) implements AsyncListener {
        @Override
        public void onComplete(AsyncEvent event) {
            completion.complete(event.getSuppliedResponse() instanceof HttpServletResponse r ? r.getStatus()
                    : HttpServletResponse.SC_INTERNAL_SERVER_ERROR);
        }

        @Override
        public void onError(AsyncEvent event) {
            completion.complete(HttpServletResponse.SC_INTERNAL_SERVER_ERROR);
        }

        @Override
        public void onTimeout(AsyncEvent event) {
            // the implementation answers the timeout (503 by default) through its filters; onComplete follows
        }

        @Override
        public void onStartAsync(AsyncEvent event) {
            event.getAsyncContext().addListener(this);     // a new async cycle drops listeners: stay for its end
        }
    }
}
