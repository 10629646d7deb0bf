package io.sluice.jaxrs.internal;

import io.sluice.core.Decision;
import io.sluice.core.request.RequestView;
import io.sluice.http.FrontDoor;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The end of one admitted request that holds concurrency leases or counts by outcome: its leases released and its
 * outcome charged once, by whichever comes first of {@link ResponseCompletion} (the entity written, or no entity to
 * write) and {@link RequestEnd} (the servlet request over). Left in request property {@value #PROPERTY}, which is the
 * servlet request attribute of that name in a servlet container.
 */
final class Completion {

    /** The request property (servlet request attribute) holding the request's completion: {@value}. */
    static final String PROPERTY = "io.sluice.jaxrs.completion";

    private final FrontDoor door;
    private final RequestView request;
    private final Decision decision;
    private final AtomicBoolean done = new AtomicBoolean();
    /** The response status the last response filter saw; 0 before. */
    private volatile int status;

    Completion(FrontDoor door, RequestView request, Decision decision) {
        this.door = door;
        this.request = request;
        this.decision = decision;
    }

    /** Notes the response status, as the last response filter sees it, for the rules that count by outcome. */
    void status(int responseStatus) {
        this.status = responseStatus;
    }

    /**
     * Releases the leases and charges the rules that count by outcome for the status noted, else {@code otherwise};
     * does nothing the second time.
     */
    void complete(int otherwise) {
        if (done.compareAndSet(false, true)) {
            int noted = status;
            door.completed(request, decision, noted != 0 ? noted : otherwise);
        }
    }

    /** @return whether {@link #complete} has run */
    boolean done() {
        return done.get();
    }
}
