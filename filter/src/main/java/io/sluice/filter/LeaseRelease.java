package io.sluice.filter;

import io.sluice.core.Decision;
import io.sluice.core.request.RequestView;
import io.sluice.http.FrontDoor;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.http.HttpServletResponse;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Releases an async request's concurrency leases once, when it completes, fails or times out (whichever comes first),
 * charges the rules that count by outcome once, when it completes (with its final status: after a timeout or an error
 * the container answers, 500 unless a listener does, only after the listeners' {@code onTimeout}/{@code onError}), and
 * follows the request through further async cycles.
 */
final class LeaseRelease implements AsyncListener {

    private final FrontDoor door;
    private final RequestView request;
    private final Decision decision;
    private final AtomicBoolean released = new AtomicBoolean();
    private final AtomicBoolean charged = new AtomicBoolean();

    private LeaseRelease(FrontDoor door, RequestView request, Decision decision) {
        this.door = door;
        this.request = request;
        this.decision = decision;
    }

    /**
     * @return true when the release is left to the async cycle; false when the caller must release now (the decision
     *     holds no lease, or the cycle already ended and takes no more listeners)
     */
    static boolean onCompletion(AsyncContext async, FrontDoor door, RequestView request, Decision decision) {
        if (!FrontDoor.awaitsCompletion(decision)) {
            return false;
        }
        try {
            async.addListener(new LeaseRelease(door, request, decision));
            return true;
        } catch (IllegalStateException cycleAlreadyOver) {
            return false;
        }
    }

    @Override
    public void onComplete(AsyncEvent event) {
        int status = event.getSuppliedResponse() instanceof HttpServletResponse r ? r.getStatus() : 0;
        release(status);
        if (charged.compareAndSet(false, true)) {
            door.charge(request, decision, status);
        }
    }

    @Override
    public void onTimeout(AsyncEvent event) {
        release(HttpServletResponse.SC_INTERNAL_SERVER_ERROR);        // a failure, for an adaptive limit
    }

    @Override
    public void onError(AsyncEvent event) {
        release(HttpServletResponse.SC_INTERNAL_SERVER_ERROR);
    }

    @Override
    public void onStartAsync(AsyncEvent event) {
        event.getAsyncContext().addListener(this);     // a new async cycle drops listeners: stay for its end
    }

    private void release(int status) {
        if (released.compareAndSet(false, true)) {
            door.release(decision, status);
        }
    }
}
