package io.sluice.jaxrs;

import io.sluice.core.config.ConfigException;
import io.sluice.http.SluiceConfig;
import io.sluice.core.time.TimeSource;
import io.sluice.jaxrs.internal.JaxrsFront;
import io.sluice.jaxrs.internal.MethodRules;
import io.sluice.jaxrs.internal.RateLimitRequestFilter;
import io.sluice.jaxrs.internal.ResponseCompletion;
import io.sluice.jaxrs.internal.ServletRequestCapture;
import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.container.DynamicFeature;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Configuration;
import jakarta.ws.rs.core.FeatureContext;
import jakarta.ws.rs.ext.Provider;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Rate limiting for JAX-RS resources: registers, for every resource method, a request filter with the method's
 * {@link RateLimit} rules and a response filter that adds the headers, both at priority {@value #PRIORITY}, and the
 * response filter and writer interceptor that release concurrency leases, at {@value #COMPLETION_PRIORITY}.
 * Discovered by scanning ({@code @Provider}), or registered explicitly:
 *
 * <pre>
 * public class Api extends Application {
 *     public Set&lt;Class&lt;?&gt;&gt; getClasses() { return Set.of(RateLimitFeature.class, ReportResource.class); }
 * }
 * // or: resourceConfig.register(new RateLimitFeature(config));
 * </pre>
 *
 * <p>Configuration, in this order: a {@link SluiceConfig} given to the constructor; with CDI, the one the application
 * produces (then shared with the servlet filter and {@code @Inject Engine}); else the parameters of the servlet filter,
 * as system properties ({@code sluice.limit}), environment variables ({@code SLUICE_LIMIT}), MicroProfile Config
 * properties ({@code sluice.limit}), or JAX-RS configuration properties ({@code sluice.limit}). Unlike the servlet
 * filter, neither {@code limit} nor {@code rules} is required: annotations are rules too.
 *
 * <p>Only requests that match a resource method are limited here; to limit every request (404s too), install the
 * servlet filter as well: requests it already decided are not counted twice.
 */
@Provider
public class RateLimitFeature implements DynamicFeature {

    /**
     * The priority of both filters: {@value}, that is {@code Priorities.AUTHORIZATION + 100}: after authentication
     * ({@code 1000}) and authorization ({@code 2000}) filters, so {@code principal} keys see the authenticated user and
     * requests refused by either are not counted; before header decorators ({@code 3000}).
     */
    public static final int PRIORITY = RateLimitRequestFilter.PRIORITY;

    /**
     * The priority of the response filter and writer interceptor that release a request's concurrency leases:
     * {@value}, the lowest, so they run after every response filter of the application and wrap its every writer
     * interceptor.
     */
    public static final int COMPLETION_PRIORITY = ResponseCompletion.PRIORITY;

    private final SluiceConfig config;
    private final TimeSource time;
    private JaxrsFront front;

    /** Configured by CDI or by parameters (system properties, environment, MicroProfile Config, JAX-RS properties). */
    public RateLimitFeature() {
        this(null, TimeSource.system());
    }

    /** Configured by {@code config}, for explicit registration. */
    public RateLimitFeature(SluiceConfig config) {
        this(config, TimeSource.system());
    }

    /** On a given clock: tests assert Retry-After and resets exactly without sleeping. */
    RateLimitFeature(SluiceConfig config, TimeSource time) {
        this.config = config;
        this.time = time;
    }

    @Override
    public void configure(ResourceInfo resource, FeatureContext context) {
        Method method = resource.getResourceMethod();
        if (method == null || resource.getResourceClass() == null) {
            return;
        }
        JaxrsFront f = front(context.getConfiguration());
        Class<?> resourceClass = unproxied(resource.getResourceClass());
        MethodRules rules;
        if (isRoot(resourceClass)) {
            scanSubResources(resourceClass, f);
            rules = rulesOf(resourceClass, method, f);                  // at start-up: an error stops it
        } else {
            rules = rulesOfSubResource(resourceClass, method, f);
        }
        if (SERVLET_API) {
            context.register(ServletRequestCapture.class, PRIORITY - 1);
        }
        context.register(new RateLimitRequestFilter(f, rules), PRIORITY);
        context.register(f.responses, PRIORITY);
        context.register(f.completions, COMPLETION_PRIORITY);
    }

    /** The sub-resource methods whose annotations were refused (logged once each). */
    private final Set<String> refused = ConcurrentHashMap.newKeySet();

    /**
     * The rules of a method of a sub-resource, which JAX-RS configures on its first request, long after start-up, when
     * its class was not read ahead (see {@link #scanSubResources}). A configuration error found there (an unknown rule
     * reference, a name with two algorithms, an invalid limit) can no longer stop start-up, and it must not fail every
     * request of the method either (the limiter is never to be the reason a request fails): the method's annotations
     * are not applied, its requests go on under the configured rules alone, and one error is logged, naming the
     * annotation and the fix.
     */
    private MethodRules rulesOfSubResource(Class<?> resource, Method method, JaxrsFront f) {
        try {
            scanSubResources(resource, f);
        } catch (ConfigException e) {
            // a sub-resource of this one: reported when JAX-RS configures it, should a request ever reach it
        }
        try {
            return rulesOf(resource, method, f);
        } catch (ConfigException e) {
            String where = resource.getName() + "." + method.getName();
            if (refused.add(where)) {
                LOG.log(System.Logger.Level.ERROR, "@RateLimit annotations of " + where + " are not applied: "
                        + e.getMessage() + ". JAX-RS configured this sub-resource on its first request, after start-up,"
                        + " so its requests go on without these limits (the configured rules still apply by their"
                        + " paths). Fix the annotation; to have such errors stop start-up instead, let a class with a"
                        + " resource method of its own return the sub-resource from a locator declared with its type");
            }
            return MethodRules.none(where);
        }
    }

    /**
     * @return whether {@code resource} is a root resource ({@code @Path} on it, a superclass or an interface), whose
     *     methods JAX-RS configures at start-up; a class without is a sub-resource, configured on its first request
     */
    private static boolean isRoot(Class<?> resource) {
        for (Class<?> c = resource; c != null && c != Object.class; c = c.getSuperclass()) {
            if (c.isAnnotationPresent(Path.class)) {
                return true;
            }
            for (Class<?> i : c.getInterfaces()) {
                if (isRoot(i)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Classes whose sub-resource locators were scanned. */
    private final Set<Class<?>> scanned = ConcurrentHashMap.newKeySet();

    /**
     * Reads the annotations of the sub-resources that {@code resource}'s locators return, when the first of
     * {@code resource}'s own resource methods is configured (at start-up for a root resource). JAX-RS implementations
     * configure a sub-resource's methods only when a request first reaches them, so without this a rule they reference
     * would apply everywhere by its paths until then, and an unknown reference or one annotation name with two
     * algorithms would be found late, when it can no longer stop start-up (see {@link #rulesOfSubResource}). Not read
     * ahead: the sub-resources of a class that has locators only (no resource method of its own, so it is never
     * configured, and JAX-RS lists no resource classes at start-up), and a locator declared to return {@code Object}.
     * An annotation on a locator itself is not applied (the sub-resource's own are), which is logged.
     */
    private void scanSubResources(Class<?> resource, JaxrsFront f) {
        if (!scanned.add(resource)) {
            return;
        }
        for (Method m : resource.getMethods()) {
            if (!m.isAnnotationPresent(Path.class) || designatesHttpMethod(m)) {
                continue;                                 // not a sub-resource locator
            }
            if (RateLimitAnnotations.methodAnnotations(resource, m).length > 0) {
                LOG.log(System.Logger.Level.WARNING, "@RateLimit on the sub-resource locator " + resource.getName() + "."
                        + m.getName() + " is not applied: annotate the sub-resource's class or methods");
            }
            Class<?> sub = m.getReturnType();
            if (sub == Object.class || sub == Class.class || sub.isPrimitive() || sub.getName().startsWith("java.")) {
                continue;
            }
            for (Method sm : sub.getMethods()) {
                // not a bridge (javac copies its annotations): one method, which the runtime configures, not two
                if (!sm.isBridge() && designatesHttpMethod(sm)) {
                    rulesOf(sub, sm, f);
                }
            }
            scanSubResources(sub, f);
        }
    }

    /**
     * @return the rules of a resource method, checked against the rules file and the other annotations, its references
     *     noted
     * @throws io.sluice.core.config.ConfigException for an unknown reference, a name with two algorithms, or a queue
     *     whose longest wait outlasts the lease of a concurrency limit of the method
     */
    private static MethodRules rulesOf(Class<?> resource, Method method, JaxrsFront f) {
        MethodRules rules = RateLimitAnnotations.rulesOf(resource, method, f.door().clientIp(), f.keyResolvers(),
                f.door().shadow(), f.annotationConfig());
        rules.checkReferences(f.door().rules());
        f.check(rules);
        f.reference(rules.references());
        return rules;
    }

    private static boolean designatesHttpMethod(Method m) {
        for (Annotation a : m.getAnnotations()) {
            if (a.annotationType().isAnnotationPresent(HttpMethod.class)) {
                return true;
            }
        }
        return false;
    }

    private static final System.Logger LOG = System.getLogger(RateLimitFeature.class.getName());

    /**
     * Whether the servlet API can be loaded: without it (Quarkus REST runs on Vert.x) the filter that reads the servlet
     * request is not registered, as loading it would fail, and the runtime's own filter sets the request's origin.
     */
    private static final boolean SERVLET_API = servletApiPresent();

    private static boolean servletApiPresent() {
        try {
            Class.forName("jakarta.servlet.http.HttpServletRequest", false, RateLimitFeature.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError absent) {
            return false;
        }
    }

    private synchronized JaxrsFront front(Configuration configuration) {
        if (front == null) {
            front = JaxrsFront.open(config, configuration, time);
        }
        return front;
    }

    /** @return the class the application wrote, behind a CDI or framework proxy subclass */
    private static Class<?> unproxied(Class<?> c) {
        Class<?> k = c;
        while (k.getSuperclass() != null && k.getSuperclass() != Object.class
                && (k.isSynthetic() || k.getName().contains("$$") || k.getName().contains("$Proxy$"))) {
            k = k.getSuperclass();
        }
        return k;
    }

    /** @return the front door state (tests read the store) */
    JaxrsFront front() {
        return front;
    }

    /** Closes the front door unless it is shared with CDI. JAX-RS offers no hook for this: call it on shutdown. */
    public synchronized void close() {
        if (front != null) {
            front.close();
        }
    }
}
