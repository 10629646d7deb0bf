package io.sluice.jaxrs;

import java.lang.annotation.Documented;
import java.lang.annotation.Inherited;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Limits the requests of a resource method, or of every method of a resource class. Repeatable: every annotation is
 * a rule, and every rule of a request counts it, all or nothing.
 *
 * <pre>
 * &#64;Path("/reports")
 * &#64;RateLimit(value = "100/1m", key = "principal")              // rule "ReportResource", shared by every method
 * public class ReportResource {
 *     &#64;GET &#64;Path("/{id}") public Report get(...)              // counted by "ReportResource"
 *
 *     &#64;POST
 *     &#64;RateLimit(value = "5/1m", key = "principal", cost = 1)   // rule "ReportResource.create" as well
 *     public Response create(...)
 *
 *     &#64;GET &#64;Path("/export")
 *     &#64;RateLimit(rule = "exports")                          // rule "exports" of the rules file
 *     public Response export(...)
 * }
 * </pre>
 *
 * <p><b>Combining.</b> A method's rules are its class's annotations and its own. Each has a name: {@link #name()},
 * else {@link #rule()}, else the class's simple name (class level) or {@code SimpleName.method} (method level), with
 * {@code -2}, {@code -3}, ... for further unnamed annotations at the same level. A method-level annotation replaces
 * the class-level one of the same name for that method; all others apply together. Two annotations with one name at
 * the same level are an error, and so is one default name for two classes or methods (overloads): set {@link #name()}.
 * A name is also the counter: the same name on two classes, or an overriding annotation, counts in the same state; one
 * name with two algorithms (of annotations, or of an annotation and a configured rule) is an error.
 *
 * <p>{@link #rule()} names a rule of the rules file and takes its limit, key, algorithm, tiers, cost and modes; it may
 * be combined only with {@link #cost()}. The referenced rule then applies where it is referenced, whatever its
 * {@code paths} and {@code methods} say (in the JAX-RS filter; the servlet filter applies it by its paths). Otherwise
 * {@link #value()} (or {@link #limit()}) is required.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
@Repeatable(RateLimits.class)
public @interface RateLimit {

    /** The limit, in the limit notation: {@code "100/1m"}, {@code "10/s burst 20"}, {@code "5 concurrent"}. */
    String value() default "";

    /** Another spelling of {@link #value()}, for {@code @RateLimit(limit = "100/1m", key = "ip")}; set one of them. */
    String limit() default "";

    /** What the rule counts by, in the key syntax ({@code ip}, {@code principal}, {@code header:X-Api-Key}, ...), or
     * the name of a {@code @Named KeyResolver} the application produces; default {@code ip}. */
    String key() default "";

    /** The algorithm ({@code gcra}, {@code token-bucket}, {@code fixed-window}, ...); default: from the notation. */
    String algorithm() default "";

    /** The weight of one request, {@code >= 0} (0 only reports); default 1, or the referenced rule's cost. */
    long cost() default -1;

    /** The rule's name in headers, logs and stored keys; default: see the class comment. */
    String name() default "";

    /** The name of a rule of the rules file to apply here instead of an inline limit. */
    String rule() default "";
}
