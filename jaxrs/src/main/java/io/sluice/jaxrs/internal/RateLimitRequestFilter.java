package io.sluice.jaxrs.internal;

import io.sluice.core.Decision;
import io.sluice.core.Rule;
import io.sluice.core.RuleOutcome;
import io.sluice.http.RuleSet;
import io.sluice.http.FrontDoor;
import io.sluice.http.Reply;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.Response;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Decides a request to one resource method, registered by {@code RateLimitFeature} at priority {@value #PRIORITY},
 * after authentication and authorization, so {@code principal} keys see the user.
 *
 * <p>The rules of a request: the configured rules (parameter {@code limit} and the rules file, except rules that some
 * {@code @RateLimit(rule = ...)} references), then the method's {@code @RateLimit} rules; one name counts once, the
 * annotation's first. When the servlet filter already decided the request (request attribute
 * {@value FrontDoor#DECISION_ATTRIBUTE}), the configured rules and every rule it counted are left out: only the
 * annotation rules it could not see are counted, and the decision left in the attribute is the union of both.
 *
 * <p>Denied: the request is aborted with the {@link io.sluice.http.Responder}'s reply, the very same status,
 * headers and body as the servlet filter's. Allowed: {@link RateLimitResponseFilter} adds the headers, and a request
 * holding concurrency leases (or counted by outcome) leaves a {@link Completion}, which {@link ResponseCompletion}
 * completes when the response is done, or else {@link RequestEnd} when the servlet request ends.
 */
public final class RateLimitRequestFilter implements ContainerRequestFilter {

    /**
     * The priority of the request and the response filter: {@value}, {@code Priorities.AUTHORIZATION + 100}; published
     * as {@code RateLimitFeature.PRIORITY}.
     */
    public static final int PRIORITY = Priorities.AUTHORIZATION + 100;

    /** The request property holding the headers that {@link RateLimitResponseFilter} adds when allowed: {@value}. */
    static final String HEADERS = "io.sluice.jaxrs.headers";

    private final JaxrsFront front;
    private final MethodRules rules;

    public RateLimitRequestFilter(JaxrsFront front, MethodRules rules) {
        this.front = front;
        this.rules = rules;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        // a decision without outcomes (path excluded, client allowlisted) counted nothing: not a decision to respect
        Decision before = request.getProperty(FrontDoor.DECISION_ATTRIBUTE) instanceof Decision d
                && !d.outcomes().isEmpty() ? d : null;
        if (!(request.getProperty(RequestOrigin.PROPERTY) instanceof RequestOrigin origin)) {
            throw new IllegalStateException("Sluice's JAX-RS filter runs in a servlet container or, with sluice-quarkus,"
                    + " in Quarkus REST; no filter of either set the request's origin (" + RequestOrigin.PROPERTY + ")");
        }
        JaxrsRequestView view = new JaxrsRequestView(request, origin);
        FrontDoor door = front.door();
        Decision ours = door.check(view, current -> select(current, before));
        if (before != null && ours.outcomes().isEmpty()) {
            return;                                       // nothing beyond the servlet filter's rules: its headers stand
        }
        Decision decision = before == null ? ours : union(before, ours);
        request.setProperty(FrontDoor.DECISION_ATTRIBUTE, decision);
        Reply reply = door.reply(decision, view);
        if (!reply.proceed()) {
            request.abortWith(denial(reply));
            // the deny-headers go on in the response filter, where the application's own filters have run: a
            // CORS filter's Access-Control-Allow-Origin then stands, and the response never carries two
            List<Reply.Header> ifAbsent = reply.headers().stream().filter(Reply.Header::onlyIfAbsent).toList();
            if (!ifAbsent.isEmpty()) {
                request.setProperty(DENY_HEADERS, ifAbsent);
            }
            return;
        }
        request.setProperty(HEADERS, reply.headers());
        if (FrontDoor.awaitsCompletion(ours)) {          // the leases are ours only: the servlet filter's are its own
            request.setProperty(Completion.PROPERTY, new Completion(door, view, ours));
        }
        if (ours.delayMicros() > 0) {
            waitInLine(ours.delayMicros());
        }
    }

    /**
     * Queueing ({@code max-wait}): a JAX-RS request filter cannot suspend the request portably (only a resource can,
     * with {@code AsyncResponse}), so a request admitted after a delay waits its turn on its own thread, at most
     * {@code max-wait}. Install the servlet filter in front for queueing without a waiting thread: it queues in
     * asynchronous mode, and this side then counts nothing twice. Only enforced rules make a request wait: a shadow
     * queue's wait is reported ({@link Decision#shadowDelayMicros()}), not waited.
     */
    private static void waitInLine(long delayMicros) {
        try {
            TimeUnit.MICROSECONDS.sleep(delayMicros);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private List<Rule> select(RuleSet current, Decision before) {
        Set<String> names = new HashSet<>();
        if (before != null) {
            before.outcomes().forEach(o -> names.add(o.rule().name()));     // the servlet filter counted these
        }
        List<Rule> own = rules.resolve(current);
        own.forEach(r -> names.add(r.name()));
        List<Rule> out = new ArrayList<>();
        if (before == null) {
            for (Rule r : current.rules()) {
                if (!front.referenced(r.name()) && !names.contains(r.name())) {
                    out.add(r);
                }
            }
        }
        for (Rule r : own) {
            if (before == null || before.outcomes().stream().noneMatch(o -> o.rule().name().equals(r.name()))) {
                out.add(current.allowlist().applyTo(r));
            }
        }
        return out;
    }

    /**
     * The servlet filter's outcomes and ours; leases are ours only (the servlet filter releases its own); decided when
     * ours was (the two are a moment apart).
     */
    private static Decision union(Decision before, Decision ours) {
        List<RuleOutcome> all = new ArrayList<>(before.outcomes());
        all.addAll(ours.outcomes());
        return Decision.of(all, ours.leases(), ours.atMicros());
    }

    /**
     * The request property holding a denial's {@code deny-headers}, which {@link RateLimitResponseFilter} adds: the
     * name it had while this class was in {@code io.sluice.jaxrs}.
     */
    static final String DENY_HEADERS = "io.sluice.jaxrs.RateLimitRequestFilter.deny-headers";

    /** The denial's status, body and headers, but for those added only if absent (see {@link #DENY_HEADERS}). */
    static Response denial(Reply reply) {
        Response.ResponseBuilder response = Response.status(reply.status());
        reply.headers().forEach(h -> {
            if (!h.onlyIfAbsent()) {
                response.header(h.name(), h.value());
            }
        });
        if (reply.body() != null) {
            response.entity(reply.body().getBytes(StandardCharsets.UTF_8)).type(reply.contentType());
        }
        return response.build();
    }
}
