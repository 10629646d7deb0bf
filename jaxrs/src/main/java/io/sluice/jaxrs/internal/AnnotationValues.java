package io.sluice.jaxrs.internal;

/**
 * The values of one {@code @RateLimit} annotation, as written (an attribute left out: {@code ""}, or {@code -1} for
 * {@code cost}). The API package reads the annotations and hands them over as these, so the internals depend on no
 * type of the API.
 *
 * @param value the limit notation, {@code "100/1m"}
 * @param limit another spelling of {@code value}
 * @param key what the rule counts by, or the name of a produced key resolver
 * @param algorithm the algorithm's id
 * @param cost the weight of one request; {@code -1}: the default
 * @param name the rule's name
 * @param rule the name of a rule of the rules file
 */
public record AnnotationValues(String value, String limit, String key, String algorithm, long cost, String name,
        String rule) {}
