package io.sluice.client;

import io.sluice.core.Rule;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * An outbound limit on a client interface (a MicroProfile Rest Client, or any interface the application calls a remote
 * API through) or on one of its methods, read by {@link SluiceClientFilter#forInterface}: the attributes are those of
 * {@link OutboundLimit}, durations in the limit notation's units ({@code 500ms}, {@code 5s}, {@code 10m}). A method's
 * annotation replaces the interface's for calls of that method.
 *
 * <pre>
 * &#64;OutboundRateLimit(name = "geocoder", limit = "10/1s", key = "acct-42", maxWait = "2s")
 * public interface GeocoderApi { ... }
 * </pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface OutboundRateLimit {

    /** The limit's name, part of the stored key. */
    String name();

    /** The local limit, in the limit notation: {@code "5000/1h"}. */
    String limit();

    /** The remote account the fleet shares a budget for; empty: the name. */
    String key() default "";

    /** The permits each call takes. */
    long cost() default 1;

    /** The longest a call waits for a permit or a pause's end. */
    String maxWait() default "5s";

    /** The longest one answer of the remote can pause the key. */
    String maxRemotePause() default "10m";

    /** What answers while the store cannot. */
    Rule.FailureMode onStoreFailure() default Rule.FailureMode.ALLOW;

    /** How many times a call answered 429 is sent again once the pause ends. */
    int retries() default 0;

    /** The longest all of a call's retries may take together. */
    String retryWithin() default "30s";

    /** Whether POST and PATCH are retried too. */
    boolean retryNonIdempotent() default false;

    /** Whether a {@code RateLimit-Policy} of the remote lowers the local limit. */
    boolean learnPolicy() default true;
}
