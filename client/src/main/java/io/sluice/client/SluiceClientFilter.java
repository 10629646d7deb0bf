package io.sluice.client;

import io.sluice.core.Engine;
import io.sluice.core.RateLimitExceededException;
import io.sluice.core.config.ConfigException;
import jakarta.ws.rs.client.ClientRequestContext;
import jakarta.ws.rs.client.ClientRequestFilter;
import jakarta.ws.rs.client.ClientResponseContext;
import jakarta.ws.rs.client.ClientResponseFilter;
import jakarta.ws.rs.client.Entity;
import jakarta.ws.rs.client.Invocation;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A JAX-RS client filter that puts a Sluice limit in front of outbound calls: register it on a {@code Client} (or a
 * {@code WebTarget}, or a MicroProfile Rest Client builder) and every call first spends the limit, waiting up to its
 * {@code maxWait}, and every answer teaches it what the remote says (see {@link OutboundLimit}).
 *
 * <pre>
 * Client client = ClientBuilder.newClient()
 *         .register(SluiceClientFilter.of(engine, OutboundLimit.builder("github", "5000/1h").key("acct-42").build()));
 * </pre>
 *
 * <p>A call that cannot have its permits in time is not sent: the filter throws {@link RateLimitExceededException},
 * which the JAX-RS implementation hands to the caller as the cause of a {@code ProcessingException} (its
 * {@link RateLimitExceededException#retryAfter()} says how long to wait). A call answered 429 is sent again as its
 * limit's retries allow, by this filter, through the same client (so through this filter again, spending the limit);
 * the caller sees the last answer.
 *
 * <p>On a MicroProfile Rest Client interface, {@link #forInterface(Engine, Class)} reads {@link OutboundRateLimit} on
 * the interface and its methods and picks a call's limit by the invoked method, which the Rest Client implementation
 * puts in the request's property {@value #INVOKED_METHOD}.
 */
public final class SluiceClientFilter implements ClientRequestFilter, ClientResponseFilter {

    /** The request property that names the invoked method of a MicroProfile Rest Client interface: {@value}. */
    public static final String INVOKED_METHOD = "org.eclipse.microprofile.rest.client.invokedMethod";
    /** The request property that holds the gate a call entered. */
    private static final String GATE = "io.sluice.client.gate";
    /** The request property that holds when the first attempt of a call began, µs. */
    private static final String STARTED = "io.sluice.client.started";
    /** The request property that marks a retry, which its call's filter sends and reads. */
    private static final String RETRY = "io.sluice.client.retry";

    /** The gate of calls whose method has no limit of its own; null when there is none. */
    private final OutboundGate every;
    private final Map<Method, OutboundGate> byMethod;

    private SluiceClientFilter(OutboundGate every, Map<Method, OutboundGate> byMethod) {
        this.every = every;
        this.byMethod = byMethod;
    }

    /** @return a filter that applies {@code limit} to every call of the client it is registered on */
    public static SluiceClientFilter of(Engine engine, OutboundLimit limit) {
        return new SluiceClientFilter(new OutboundGate(engine, limit), Map.of());
    }

    /**
     * @param api a client interface with {@link OutboundRateLimit} on it or on its methods
     * @return a filter that applies to each call the limit of its invoked method (see the class comment)
     * @throws ConfigException when an annotation is invalid, when none is found, or when two limits share a name
     */
    public static SluiceClientFilter forInterface(Engine engine, Class<?> api) {
        Map<Method, OutboundLimit> limits = AnnotatedLimits.byMethod(api);
        if (limits.isEmpty()) {
            throw new ConfigException("api", api.getName(), "expected @OutboundRateLimit on the interface or a method");
        }
        Map<OutboundLimit, OutboundGate> gates = new HashMap<>();
        Map<String, OutboundLimit> names = new HashMap<>();
        Map<Method, OutboundGate> byMethod = new HashMap<>();
        limits.forEach((m, l) -> {
            OutboundLimit same = names.putIfAbsent(l.name(), l);
            if (same != null && !same.equals(l)) {
                throw new ConfigException("name", l.name(), "expected one limit per name: " + api.getName()
                        + " states two different ones");
            }
            byMethod.put(m, gates.computeIfAbsent(l, k -> new OutboundGate(engine, k)));
        });
        OutboundRateLimit onType = api.getAnnotation(OutboundRateLimit.class);
        OutboundGate every = onType == null ? null : gates.get(AnnotatedLimits.of(onType));
        return new SluiceClientFilter(every, Map.copyOf(byMethod));
    }

    @Override
    public void filter(ClientRequestContext request) throws IOException {
        if (request.getProperty(RETRY) != null) {
            return;             // a retry: its call's filter entered the gate for it, and reads its answer
        }
        OutboundGate gate = gateOf(request);
        if (gate == null) {
            return;
        }
        request.setProperty(STARTED, gate.time().nowMicros());
        try {
            gate.enter();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for outbound limit \""
                    + gate.limit().name() + "\"");
        }
        request.setProperty(GATE, gate);
    }

    @Override
    public void filter(ClientRequestContext request, ClientResponseContext response) throws IOException {
        if (request.getProperty(RETRY) != null || !(request.getProperty(GATE) instanceof OutboundGate gate)) {
            return;
        }
        gate.learn(response.getStatus(), name -> values(response.getHeaderString(name)));
        if (response.getStatus() != 429 || !gate.limit().retries(request.getMethod())) {
            return;
        }
        long started = request.getProperty(STARTED) instanceof Long s ? s : gate.time().nowMicros();
        Response last;
        try {
            last = gate.retry(request.getMethod(), null, started, timeout -> resend(request, gate, timeout),
                    new Retried());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while retrying a call of outbound limit \""
                    + gate.limit().name() + "\"");
        }
        if (last != null) {
            replace(response, last);
        }
    }

    private OutboundGate gateOf(ClientRequestContext request) {
        if (request.getProperty(INVOKED_METHOD) instanceof Method m) {
            OutboundGate g = byMethod.get(m);
            if (g != null) {
                return g;
            }
        }
        return every;
    }

    private static List<String> values(String field) {
        return field == null ? List.of() : List.of(field);
    }

    /**
     * Sends {@code request} again through its client once the gate lets it in within {@code timeout} µs, marked as a
     * retry (so that this filter, if it is on that path, lets it be), and learns from the answer.
     *
     * @throws RateLimitExceededException when the gate cannot let it in in time
     */
    private static Response resend(ClientRequestContext request, OutboundGate gate, long timeout)
            throws InterruptedException {
        gate.enter(timeout);
        Invocation.Builder b = request.getClient().target(request.getUri()).request().property(RETRY, Boolean.TRUE);
        request.getHeaders().forEach((name, values) -> {
            if (!HttpHeaders.CONTENT_LENGTH.equalsIgnoreCase(name)) {
                values.forEach(v -> b.header(name, v));
            }
        });
        Response r = request.hasEntity()
                ? b.method(request.getMethod(), Entity.entity(request.getEntity(), request.getMediaType()))
                : b.method(request.getMethod());
        gate.learn(r.getStatus(), name -> values(r.getHeaderString(name)));
        return r;
    }

    /** Puts a retry's answer in place of the first one's. */
    private static void replace(ClientResponseContext response, Response last) throws IOException {
        InputStream old = response.getEntityStream();
        if (old != null) {
            old.close();
        }
        response.setStatus(last.getStatus());
        response.getHeaders().clear();
        last.getStringHeaders().forEach((name, values) -> response.getHeaders().addAll(name, values));
        response.setEntityStream(last.hasEntity() ? last.readEntity(InputStream.class) : InputStream.nullInputStream());
    }

    /** The responses of retries; the first one (null here) stays in the response context until replaced. */
    private static final class Retried implements OutboundGate.Responses<Response> {
        @Override
        public int status(Response r) {
            return r == null ? 429 : r.getStatus();
        }

        @Override
        public void discard(Response r) {
            if (r != null) {
                r.close();
            }
        }
    }
}
