package io.sluice.jaxrs;

import io.sluice.core.key.ClientIpResolver;
import io.sluice.core.key.KeyResolver;
import io.sluice.jaxrs.internal.AnnotationValues;
import io.sluice.jaxrs.internal.MethodRules;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Finds the {@link RateLimit} annotations of a resource method (its class's and its own, inherited as JAX-RS inherits
 * its annotations) and hands their values to {@link MethodRules}, which makes them rules: the internals never name the
 * annotation. Public for the other front doors that read the same annotation (the Spring Boot starter's handler
 * interceptor).
 */
public final class RateLimitAnnotations {

    private RateLimitAnnotations() {}

    /**
     * @param custom the application's named key resolvers (CDI)
     * @param shadow parameter {@code shadow}: the inline rules count and report but never deny
     * @return the rules of the annotations of {@code method} of {@code resource}
     * @throws io.sluice.core.config.ConfigException naming the class or method and the annotation attribute
     */
    static MethodRules rulesOf(Class<?> resource, Method method, ClientIpResolver ips, Map<String, KeyResolver> custom,
            boolean shadow) {
        return rulesOf(resource, method, ips, custom, shadow, name -> null);
    }

    /**
     * As {@link #rulesOf(Class, Method, ClientIpResolver, Map, boolean)}, with the annotations' attributes overridden by
     * {@code config} in the MicroProfile Fault Tolerance key style: see {@link AnnotationConfig}.
     *
     * @param config a configuration lookup (MicroProfile Config): a property's value, or null when unset
     */
    public static MethodRules rulesOf(Class<?> resource, Method method, ClientIpResolver ips,
            Map<String, KeyResolver> custom, boolean shadow, Function<String, String> config) {
        AnnotationConfig overrides = new AnnotationConfig(config, resource, method);
        if (!overrides.enabled()) {
            return MethodRules.none(resource.getName() + "." + method.getName());
        }
        return MethodRules.of(resource, method, overrides.apply(values(classAnnotations(resource))),
                overrides.apply(values(methodAnnotations(resource, method))), ips, custom, shadow);
    }

    /** @return the values of {@code annotations}, in their order */
    static List<AnnotationValues> values(RateLimit[] annotations) {
        List<AnnotationValues> out = new ArrayList<>(annotations.length);
        for (RateLimit a : annotations) {
            out.add(new AnnotationValues(a.value(), a.limit(), a.key(), a.algorithm(), a.cost(), a.name(), a.rule()));
        }
        return out;
    }

    /**
     * The class's annotations: its own or a superclass's, else those of the interfaces it implements, nearest first,
     * as JAX-RS inherits its own annotations.
     */
    static RateLimit[] classAnnotations(Class<?> resource) {
        return nearest(resource, c -> c.getDeclaredAnnotationsByType(RateLimit.class));
    }

    /**
     * The method's annotations; when it has none, those of the method it overrides or implements: in the superclasses,
     * then in the interfaces, as JAX-RS inherits {@code @GET} and {@code @Path} (Jakarta REST, 3.6). So an annotation on
     * an interface or a base class method counts whether the implementation hands the implementing method (Jersey) or
     * the interface's (RESTEasy), and an overriding method does not lose it.
     */
    static RateLimit[] methodAnnotations(Class<?> resource, Method method) {
        // nearest first. RESTEasy hands over the interface as the resource class when the interface has @Path, so there
        // an interface's annotation is the nearest; a generic interface method (put(T)) is found by the passed method
        // only, so on Jersey, which passes the implementing put(String), it is not
        RateLimit[] found = nearest(resource, c -> declared(c, method));
        return found.length > 0 ? found : method.getAnnotationsByType(RateLimit.class);
    }

    /**
     * @return the first non-empty {@code on(c)}: for {@code resource} and its superclasses, then for the interfaces they
     *     implement and those interfaces' own, depth first; empty when none has any
     */
    private static RateLimit[] nearest(Class<?> resource, Function<Class<?>, RateLimit[]> on) {
        for (Class<?> c = resource; c != null && c != Object.class; c = c.getSuperclass()) {
            RateLimit[] found = on.apply(c);
            if (found.length > 0) {
                return found;
            }
        }
        for (Class<?> c = resource; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Class<?> i : c.getInterfaces()) {
                RateLimit[] found = inInterface(i, on);
                if (found.length > 0) {
                    return found;
                }
            }
        }
        return new RateLimit[0];
    }

    private static RateLimit[] inInterface(Class<?> iface, Function<Class<?>, RateLimit[]> on) {
        RateLimit[] found = on.apply(iface);
        for (int p = 0; found.length == 0 && p < iface.getInterfaces().length; p++) {
            found = inInterface(iface.getInterfaces()[p], on);
        }
        return found;
    }

    /** @return the annotations of the method of {@code c} with {@code method}'s name and parameters; none if absent */
    private static RateLimit[] declared(Class<?> c, Method method) {
        try {
            return c.getDeclaredMethod(method.getName(), method.getParameterTypes()).getAnnotationsByType(RateLimit.class);
        } catch (NoSuchMethodException | SecurityException e) {
            return new RateLimit[0];
        }
    }
}
