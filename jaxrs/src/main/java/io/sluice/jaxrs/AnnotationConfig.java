package io.sluice.jaxrs;

import io.sluice.core.config.ConfigException;
import io.sluice.jaxrs.internal.AnnotationValues;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * {@link RateLimit} attributes overridden through MicroProfile Config in the key style of MicroProfile Fault
 * Tolerance, for one resource method ({@code com.acme.Api} and its method {@code get}):
 * <ol>
 * <li>{@code com.acme.Api/get/RateLimit/<attribute>}: this method,
 * <li>{@code com.acme.Api/RateLimit/<attribute>}: every method of the class,
 * <li>{@code RateLimit/<attribute>}: every annotated method,
 * </ol>
 * the first set wins, and the annotation's own value applies when none is. Attributes: {@code value}, {@code limit},
 * {@code key}, {@code algorithm}, {@code cost}, {@code name}, {@code rule}, and {@code enabled}: {@code false} turns
 * the method's {@code @RateLimit} rules off (its class's and its own), {@code true} turns them back on below a
 * {@code false} of a wider level. An override applies to each annotation of the method, class-level and method-level
 * alike (with several at one level, give them their values in the annotations). The class is named as JAX-RS hands
 * it over: the resource class, or on RESTEasy the interface that has the {@code @Path}.
 */
final class AnnotationConfig {

    static final String ANNOTATION = "RateLimit";

    private final Function<String, String> config;
    private final String methodPrefix;
    private final String classPrefix;

    AnnotationConfig(Function<String, String> config, Class<?> resource, Method method) {
        this.config = config;
        this.classPrefix = resource.getName() + "/" + ANNOTATION + "/";
        this.methodPrefix = resource.getName() + "/" + method.getName() + "/" + ANNOTATION + "/";
    }

    /** @return the first key of the method, class and global levels that is set, or null when none is */
    private String[] find(String attribute) {
        for (String key : new String[] {methodPrefix + attribute, classPrefix + attribute, ANNOTATION + "/" + attribute}) {
            String v = config.apply(key);
            if (v != null) {
                return new String[] {key, v};
            }
        }
        return null;
    }

    /**
     * @return whether the method's annotations apply: {@code enabled} at the narrowest level that sets it, else true
     * @throws ConfigException for a value other than true or false
     */
    boolean enabled() {
        String[] e = find("enabled");
        if (e == null) {
            return true;
        }
        return switch (e[1].trim().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new ConfigException(e[0] + " (MicroProfile Config)", e[1], "expected true or false");
        };
    }

    /** @return {@code annotations}, each with the attributes the configuration sets */
    List<AnnotationValues> apply(List<AnnotationValues> annotations) {
        if (annotations.isEmpty()) {
            return annotations;
        }
        String[] cost = find("cost");
        long costValue = -1;
        if (cost != null) {
            try {
                costValue = Long.parseLong(cost[1].trim());
            } catch (NumberFormatException e) {
                throw new ConfigException(cost[0] + " (MicroProfile Config)", cost[1], "expected a cost >= 0");
            }
            if (costValue < 0) {
                throw new ConfigException(cost[0] + " (MicroProfile Config)", cost[1], "expected a cost >= 0");
            }
        }
        String[] value = find("value");
        String[] limit = find("limit");
        List<AnnotationValues> out = new ArrayList<>(annotations.size());
        for (AnnotationValues a : annotations) {
            String v = a.value();
            String l = a.limit();
            if (value != null || limit != null) {          // the notation set in the configuration replaces both
                v = value != null ? value[1] : "";
                l = value != null ? "" : limit[1];
            }
            out.add(new AnnotationValues(v, l, or(find("key"), a.key()), or(find("algorithm"), a.algorithm()),
                    cost != null ? costValue : a.cost(), or(find("name"), a.name()), or(find("rule"), a.rule())));
        }
        return out;
    }

    private static String or(String[] found, String annotated) {
        return found == null ? annotated : found[1];
    }
}
