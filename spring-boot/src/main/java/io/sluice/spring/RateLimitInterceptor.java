package io.sluice.spring;

import io.sluice.core.Decision;
import io.sluice.core.Rule;
import io.sluice.core.RuleOutcome;
import io.sluice.core.key.KeyResolver;
import io.sluice.filter.ServletRequestView;
import io.sluice.http.FrontDoor;
import io.sluice.http.Reply;
import io.sluice.http.RuleSet;
import io.sluice.jaxrs.RateLimitAnnotations;
import io.sluice.jaxrs.internal.MethodRules;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerInterceptor;

/**
 * {@code @RateLimit} ({@code io.sluice.jaxrs.RateLimit}) on Spring MVC handler methods and their classes, with the
 * semantics it has on JAX-RS resources: the same names, combining, references to rules of the rules file, and keys
 * in the MicroProfile Fault Tolerance style ({@code com.acme.Api/get/RateLimit/value}) read from Spring's
 * {@code Environment}. The servlet filter has decided the configured rules before; this counts the handler's own
 * rules it could not see, and the decision left in request attribute {@value FrontDoor#DECISION_ATTRIBUTE} is the
 * union of both, as behind the JAX-RS filter.
 *
 * <p>Denied: the filter's very answer (status, headers, body), the handler is not called. Allowed: the headers of
 * both decisions, the handler's rules' replacing the filter's of the same name. A queued request waits its turn on
 * its own thread (at most the rule's {@code max-wait}), as in the JAX-RS filter; concurrency leases are released when
 * the request completes, after an asynchronous handler's result too.
 */
final class RateLimitInterceptor implements HandlerInterceptor {

    /** The request attribute holding the decision of the handler's rules, until the request completes. */
    static final String OURS = RateLimitInterceptor.class.getName() + ".decision";

    private final FrontDoor door;
    private final Map<String, KeyResolver> keyResolvers;
    private final Function<String, String> config;
    private final Map<Method, MethodRules> rules = new ConcurrentHashMap<>();

    RateLimitInterceptor(FrontDoor door, Map<String, KeyResolver> keyResolvers, Function<String, String> config) {
        this.door = door;
        this.keyResolvers = Map.copyOf(keyResolvers);
        this.config = config;
    }

    /**
     * @return the rules of {@code handler}'s annotations, read once
     * @throws io.sluice.core.config.ConfigException naming the class or method and the annotation attribute
     */
    MethodRules rulesOf(HandlerMethod handler) {
        return rules.computeIfAbsent(handler.getMethod(), m -> RateLimitAnnotations.rulesOf(handler.getBeanType(), m,
                door.clientIp(), keyResolvers, door.shadow(), config));
    }

    @Override
    public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler)
            throws IOException {
        if (request.getDispatcherType() != DispatcherType.REQUEST || !(handler instanceof HandlerMethod method)) {
            return true;                              // an async dispatch or an error page: decided already
        }
        MethodRules own = rulesOf(method);
        if (own.isEmpty()) {
            return true;
        }
        Decision before = request.getAttribute(FrontDoor.DECISION_ATTRIBUTE) instanceof Decision d
                && !d.outcomes().isEmpty() ? d : null;
        ServletRequestView view = new ServletRequestView(request, response);
        Decision ours = door.check(view, current -> select(own, current, before));
        if (ours.outcomes().isEmpty()) {
            return true;                              // excluded, allowlisted, or counted by the filter already
        }
        Decision decision = before == null ? ours : union(before, ours);
        request.setAttribute(FrontDoor.DECISION_ATTRIBUTE, decision);
        Reply reply = door.reply(decision, view);
        if (!reply.proceed()) {
            send(response, reply);
            return false;
        }
        headers(response, reply);
        if (FrontDoor.awaitsCompletion(ours)) {
            request.setAttribute(OURS, ours);
        }
        if (ours.delayMicros() > 0) {
            waitInLine(ours.delayMicros());
        }
        return true;
    }

    @Override
    public void afterCompletion(HttpServletRequest request, HttpServletResponse response, Object handler,
            Exception failure) {
        if (request.getAttribute(OURS) instanceof Decision ours) {
            request.removeAttribute(OURS);
            door.completed(new ServletRequestView(request, response), ours,
                    failure != null ? HttpServletResponse.SC_INTERNAL_SERVER_ERROR : response.getStatus());
        }
    }

    /** @return the handler's rules under {@code current} that the filter did not count, with the allowlist applied */
    private static List<Rule> select(MethodRules own, RuleSet current, Decision before) {
        List<Rule> out = new ArrayList<>();
        for (Rule r : own.resolve(current)) {
            if (before == null || before.outcomes().stream().noneMatch(o -> o.rule().name().equals(r.name()))) {
                out.add(current.allowlist().applyTo(r));
            }
        }
        return out;
    }

    /** @return the filter's outcomes and ours; the leases are ours only (the filter releases its own) */
    private static Decision union(Decision before, Decision ours) {
        List<RuleOutcome> all = new ArrayList<>(before.outcomes());
        all.addAll(ours.outcomes());
        return Decision.of(all, ours.leases(), ours.atMicros());
    }

    /**
     * Puts the reply's headers on the response, each name's first value replacing what the filter wrote of that name
     * (the union's header holds the filter's rules too), and a configured deny-header the response already has left.
     */
    private static void headers(HttpServletResponse response, Reply reply) {
        List<String> set = new ArrayList<>();
        for (Reply.Header h : reply.headers()) {
            if (h.onlyIfAbsent() && response.containsHeader(h.name())) {
                continue;
            }
            if (set.contains(h.name())) {
                response.addHeader(h.name(), h.value());
            } else {
                set.add(h.name());
                response.setHeader(h.name(), h.value());
            }
        }
    }

    private static void send(HttpServletResponse response, Reply reply) throws IOException {
        headers(response, reply);
        response.setStatus(reply.status());
        if (reply.body() == null) {
            response.setContentLength(0);
            return;
        }
        response.setContentType(reply.contentType());
        response.getWriter().write(reply.body());
    }

    /** Queueing ({@code max-wait}) in a handler interceptor: on the request's thread, at most the rule's wait. */
    private static void waitInLine(long delayMicros) {
        try {
            TimeUnit.MICROSECONDS.sleep(delayMicros);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
