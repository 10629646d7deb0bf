package io.sluice.jaxrs;

import io.sluice.core.Decision;
import io.sluice.http.FrontDoor;
import jakarta.annotation.Priority;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import java.security.Principal;
import java.util.Set;

/** The resources every suite runs against, and an authentication filter. */
final class Resources {

    private Resources() {}

    /** Every resource class of the suites. */
    static final Set<Class<?>> ALL = Set.of(Hello.class, Limited.class, Users.class, Authentication.class);

    /**
     * Answers 200 "hello" with the decision it sees in {@code X-Decision-Binding}, {@code X-Decision-Shadow-Denied} and
     * {@code X-Decision-Shadow-Delay} (microseconds).
     */
    static Response hello(Object decision) {
        Decision d = decision instanceof Decision x ? x : null;
        return Response.ok("hello", "text/plain")
                .header("X-Decision-Binding", d == null ? "none" : d.binding() == null ? "none" : d.binding().rule().name())
                .header("X-Decision-Shadow-Denied", d != null && d.shadowDenied())
                .header("X-Decision-Shadow-Delay", d == null ? 0 : d.shadowDelayMicros())
                .build();
    }

    /** No annotation: only configured rules apply. */
    @Path("/hello")
    public static class Hello {
        @GET
        public Response get(@Context jakarta.servlet.http.HttpServletRequest servlet) {
            return hello(servlet.getAttribute(FrontDoor.DECISION_ATTRIBUTE));
        }
    }

    /** A class-level limit shared by every method; one method adds its own, another overrides the class's. */
    @Path("/limited")
    @RateLimit("3/1h")
    public static class Limited {
        @GET
        @Path("/a")
        public Response a(@Context jakarta.servlet.http.HttpServletRequest servlet) {
            return hello(servlet.getAttribute(FrontDoor.DECISION_ATTRIBUTE));
        }

        @GET
        @Path("/b")
        @RateLimit("1/1h")
        public Response b(@Context jakarta.servlet.http.HttpServletRequest servlet) {
            return hello(servlet.getAttribute(FrontDoor.DECISION_ATTRIBUTE));
        }

        @GET
        @Path("/c")
        @RateLimit(name = "Limited", value = "5/1h")
        public Response c(@Context jakarta.servlet.http.HttpServletRequest servlet) {
            return hello(servlet.getAttribute(FrontDoor.DECISION_ATTRIBUTE));
        }
    }

    /** Limited per authenticated user. */
    @Path("/users")
    public static class Users {
        @GET
        @RateLimit(value = "2/1h", key = "principal", name = "per-user")
        public Response get(@Context jakarta.servlet.http.HttpServletRequest servlet) {
            return hello(servlet.getAttribute(FrontDoor.DECISION_ATTRIBUTE));
        }
    }

    /** An interface whose method carries the limit: Jersey hands the implementing method, RESTEasy the interface's. */
    @Path("/iface")
    public interface LimitedApi {
        @GET
        @RateLimit(value = "1/1h", name = "iface")
        String get();
    }

    public static class LimitedImpl implements LimitedApi {
        @Override
        public String get() {
            return "iface";
        }
    }

    /** A base class's limited method, overridden: JAX-RS still serves it, and the limit must stay. */
    public abstract static class LimitedBase {
        @GET
        @Path("/m")
        @RateLimit(value = "1/1h", name = "base")
        public String m() {
            return "base";
        }
    }

    @Path("/sub")
    public static class Overriding extends LimitedBase {
        @Override
        public String m() {
            return "overriding";
        }
    }

    /** Two overloads, each with an unnamed annotation: the default name "Overloads.get" would be one counter. */
    @Path("/overloads")
    public static class Overloads {
        @GET
        @RateLimit("1/1h")
        public String get() {
            return "all";
        }

        @GET
        @Path("/{id}")
        @RateLimit("5/1h")
        public String get(@jakarta.ws.rs.PathParam("id") String id) {
            return id;
        }
    }

    /** A generic resource interface: implementing it with a concrete type makes javac add a bridge method. */
    public interface Creator<T> {
        String create(T body);
    }

    /** Implements {@link Creator} with String: create(String) and its bridge create(Object), annotations copied. */
    @Path("/generic")
    public static class GenericImpl implements Creator<String> {
        @POST
        @RateLimit("5/1h")
        @Override
        public String create(String body) {
            return "created";
        }
    }

    /** A locator whose sub-resource has a bridge method. */
    @Path("/generic-locator")
    public static class GenericLocator {
        @GET
        public String list() {
            return "list";
        }

        @Path("/sub")
        public GenericImpl sub() {
            return new GenericImpl();
        }
    }

    /** A fixed-window annotation named like rule "shared" of the rules file, which is GCRA. */
    @Path("/shared")
    public static class SharedWithTheRulesFile {
        @GET
        @RateLimit(name = "shared", value = "2/1h", algorithm = "fixed-window")
        public String get() {
            return "shared";
        }
    }

    /** A resource with a sub-resource locator whose sub-resource references rule "sub-only" of the rules file. */
    @Path("/locator")
    public static class Locator {
        @GET
        public String list() {
            return "list";
        }

        @Path("/sub")
        public SubResource sub() {
            return new SubResource();
        }
    }

    public static class SubResource {
        @GET
        @RateLimit(rule = "sub-only")
        public String get() {
            return "sub";
        }
    }

    /**
     * A class with sub-resource locators only, so never configured itself: JAX-RS configures its sub-resources on their
     * first request, and Sluice reads their annotations only then.
     */
    @Path("/only-locators")
    public static class OnlyLocators {
        @Path("/shared")
        public SharingSub shared() {
            return new SharingSub();
        }

        @Path("/missing")
        public MissingSub missing() {
            return new MissingSub();
        }

        @Path("/fine")
        public FineSub fine() {
            return new FineSub();
        }

        @Path("/partly")
        public PartlySharingSub partly() {
            return new PartlySharingSub();
        }

        @Path("/partly-again")
        public PartlyAgainSub partlyAgain() {
            return new PartlyAgainSub();
        }
    }

    /** A fixed-window annotation named like rule "shared" of the rules file, which is GCRA: refused. */
    public static class SharingSub {
        @GET
        @RateLimit(name = "shared", value = "2/1h", algorithm = "fixed-window")
        public String get() {
            return "sub";
        }
    }

    /** A reference to a rule the rules file does not have: refused. */
    public static class MissingSub {
        @GET
        @RateLimit(rule = "missing")
        public String get() {
            return "sub";
        }
    }

    /** A valid annotation: applied from the first request. */
    public static class FineSub {
        @GET
        @RateLimit(name = "fine-sub", value = "1/1h")
        public String get() {
            return "sub";
        }
    }

    /** A valid fixed-window annotation "partly" beside a refused one ("shared", as {@link SharingSub}). */
    public static class PartlySharingSub {
        @GET
        @RateLimit(name = "partly", value = "2/1h", algorithm = "fixed-window")
        @RateLimit(name = "shared", value = "2/1h", algorithm = "fixed-window")
        public String get() {
            return "sub";
        }
    }

    /** A GCRA annotation "partly": valid, since {@link PartlySharingSub}'s annotations were refused together. */
    public static class PartlyAgainSub {
        @GET
        @RateLimit(name = "partly", value = "5/1h")
        public String get() {
            return "sub";
        }
    }

    /** Applies rule "exports" of the rules file, at its own cost and at cost 2. */
    @Path("/exports")
    public static class Referencing {
        @GET
        @RateLimit(rule = "exports")
        public Response one(@Context jakarta.servlet.http.HttpServletRequest servlet) {
            return hello(servlet.getAttribute(FrontDoor.DECISION_ATTRIBUTE));
        }

        @GET
        @Path("/heavy")
        @RateLimit(rule = "exports", cost = 2)
        public Response heavy(@Context jakarta.servlet.http.HttpServletRequest servlet) {
            return hello(servlet.getAttribute(FrontDoor.DECISION_ATTRIBUTE));
        }
    }

    /** A login form: 200 with header {@code X-Password: secret}, else 401; limited by rule "failed-logins". */
    @Path("/login")
    public static class Login {
        @POST
        @RateLimit(rule = "failed-logins")
        public Response login(@jakarta.ws.rs.HeaderParam("X-Password") String password) {
            return Response.status("secret".equals(password) ? 200 : 401).entity("login").build();
        }
    }

    /** One request in flight at a time, answered with a body (the lease is released after the body is written). */
    @Path("/reports")
    public static class Reports {
        @GET
        @RateLimit("1 concurrent")
        public String report() {
            return "report";
        }
    }

    /** One request in flight at a time, failing with an exception no {@code ExceptionMapper} handles. */
    @Path("/failing-reports")
    public static class FailingReports {
        @GET
        @RateLimit("1 concurrent")
        public String report() {
            throw new IllegalStateException("the report failed");
        }
    }

    /**
     * One request in flight at a time, streaming its body: it writes a first part, then waits until the test counts
     * down the latch it hands over through {@link #WRITING}, then writes the rest.
     */
    @Path("/streams")
    public static class Streams {
        static final java.util.concurrent.BlockingQueue<java.util.concurrent.CountDownLatch> WRITING =
                new java.util.concurrent.LinkedBlockingQueue<>();

        @GET
        @RateLimit("1 concurrent")
        public jakarta.ws.rs.core.StreamingOutput stream() {
            return out -> {
                // past any buffer (Jersey's: 8 KiB), so the client sees it while the rest waits
                out.write(".".repeat(16 * 1024).getBytes(java.nio.charset.StandardCharsets.UTF_8));
                out.write("start\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
                out.flush();
                java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
                WRITING.add(go);
                try {
                    if (!go.await(10, java.util.concurrent.TimeUnit.SECONDS)) {
                        throw new java.io.IOException("the test never let the stream finish");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new java.io.InterruptedIOException();
                }
                out.write("end".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            };
        }
    }

    /** One request in flight at a time, answered later by the test through {@link #HELD} (JAX-RS async). */
    @Path("/async-reports")
    public static class AsyncReports {
        static final java.util.concurrent.BlockingQueue<jakarta.ws.rs.container.AsyncResponse> HELD =
                new java.util.concurrent.LinkedBlockingQueue<>();

        @GET
        @RateLimit("1 concurrent")
        public void report(@jakarta.ws.rs.container.Suspended jakarta.ws.rs.container.AsyncResponse response) {
            HELD.add(response);
        }
    }

    /** Thrown by {@link ConflictingReports}, answered by {@link ConflictMapper}. */
    public static class Conflict extends RuntimeException {
        Conflict(String message) {
            super(message);
        }
    }

    /** Maps {@link Conflict} to 409, with the message as its entity, or without an entity when the message is "". */
    public static class ConflictMapper implements jakarta.ws.rs.ext.ExceptionMapper<Conflict> {
        @Override
        public Response toResponse(Conflict e) {
            return e.getMessage().isEmpty() ? Response.status(409).build()
                    : Response.status(409).entity(e.getMessage()).type("text/plain").build();
        }
    }

    /** One request in flight at a time, failing with a mapped exception: with an entity, without on {@code ?empty}. */
    @Path("/conflicting-reports")
    public static class ConflictingReports {
        @GET
        @RateLimit("1 concurrent")
        public String report(@jakarta.ws.rs.QueryParam("empty") String empty) {
            throw new Conflict(empty != null ? "" : "conflict");
        }
    }

    /**
     * An application's response filter of a lower priority than Sluice's, so it runs after Sluice's: drops the entity
     * on {@code X-Drop-Entity}, replaces it on {@code X-Replace-Entity}, sets the status of {@code X-Status}, throws on
     * {@code X-Fail}.
     */
    @Priority(Priorities.AUTHENTICATION)
    public static class EntityRewriter implements jakarta.ws.rs.container.ContainerResponseFilter {
        @Override
        public void filter(ContainerRequestContext request, jakarta.ws.rs.container.ContainerResponseContext response) {
            if (request.getHeaderString("X-Drop-Entity") != null) {
                response.setEntity(null);
            }
            if (request.getHeaderString("X-Replace-Entity") != null) {
                response.setEntity("replaced", null, jakarta.ws.rs.core.MediaType.TEXT_PLAIN_TYPE);
            }
            if (request.getHeaderString("X-Status") != null) {
                response.setStatus(Integer.parseInt(request.getHeaderString("X-Status")));
            }
            if (request.getHeaderString("X-Fail") != null) {
                throw new IllegalStateException("the application's response filter failed");
            }

        }
    }

    /**
     * An application's writer interceptor of a lower priority than Sluice's, so it wraps Sluice's: on
     * {@code X-Own-Writer} it writes the body itself, without calling {@code proceed} (as a cache answering from
     * memory would).
     */
    @Priority(Priorities.AUTHENTICATION)
    public static class OwnWriter implements jakarta.ws.rs.ext.WriterInterceptor {
        @Context
        private jakarta.ws.rs.core.HttpHeaders headers;

        @Override
        public void aroundWriteTo(jakarta.ws.rs.ext.WriterInterceptorContext context) throws java.io.IOException {
            if (headers.getHeaderString("X-Own-Writer") == null) {
                context.proceed();
                return;
            }
            context.getOutputStream().write("own".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
    }

    /**
     * Authenticates {@code X-Test-User} as the JAX-RS principal, with the role in {@code X-Test-Role}, as an
     * application's authentication filter would.
     */
    @Priority(Priorities.AUTHENTICATION)
    public static class Authentication implements ContainerRequestFilter {
        @Override
        public void filter(ContainerRequestContext request) {
            String user = request.getHeaderString("X-Test-User");
            if (user == null) {
                return;
            }
            Principal principal = () -> user;
            String granted = request.getHeaderString("X-Test-Role");
            request.setSecurityContext(new SecurityContext() {
                @Override
                public Principal getUserPrincipal() {
                    return principal;
                }

                @Override
                public boolean isUserInRole(String role) {
                    return role.equals(granted);
                }

                @Override
                public boolean isSecure() {
                    return false;
                }

                @Override
                public String getAuthenticationScheme() {
                    return "test";
                }
            });
        }
    }

    /** A queue whose longest wait (19 minutes) outlasts the one-minute leases of the method's concurrency limit. */
    @Path("/queued-in-flight")
    public static class QueuedInFlight {
        @GET
        @RateLimit(name = "queue", value = "1/1m burst 20 max-wait 1h")
        @RateLimit(name = "in-flight", value = "20 concurrent")
        public String get() {
            return "queued";
        }
    }

    /** A queue of 19 minutes at most, beside the configured rules. */
    @Path("/queued")
    public static class Queued {
        @GET
        @RateLimit(name = "queue", value = "1/1m burst 20 max-wait 1h")
        public String get() {
            return "queued";
        }
    }

    /** A class with a locator only: JAX-RS configures {@link QueuedInFlightSub} on its first request. */
    @Path("/queued-locator")
    public static class QueuedLocator {
        @Path("/sub")
        public QueuedInFlightSub sub() {
            return new QueuedInFlightSub();
        }
    }

    /** As {@link QueuedInFlight}, as a sub-resource: refused on its first request. */
    public static class QueuedInFlightSub {
        @GET
        @RateLimit(name = "sub-queue", value = "1/1m burst 20 max-wait 1h")
        @RateLimit(name = "sub-in-flight", value = "1 concurrent")
        public String get() {
            return "sub";
        }
    }
}
