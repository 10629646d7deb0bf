package io.sluice.client;

import io.sluice.core.policy.PolicyParser;
import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.Map;

/** Reads the {@link OutboundRateLimit} annotations of a client interface into {@link OutboundLimit}s. */
final class AnnotatedLimits {

    private AnnotatedLimits() {}

    /** @return the limit the annotation states; a bad attribute fails naming it and its value */
    static OutboundLimit of(OutboundRateLimit a) {
        return OutboundLimit.builder(a.name(), a.limit())
                .key(a.key().isEmpty() ? a.name() : a.key())
                .cost(a.cost())
                .maxWait(PolicyParser.parseDuration("maxWait", a.maxWait()))
                .maxRemotePause(PolicyParser.parseDuration("maxRemotePause", a.maxRemotePause()))
                .onStoreFailure(a.onStoreFailure())
                .retries(a.retries(), PolicyParser.parseDuration("retryWithin", a.retryWithin()))
                .retryNonIdempotent(a.retryNonIdempotent())
                .learnPolicy(a.learnPolicy())
                .build();
    }

    /** @return the limit of each annotated method of {@code api} (its own, else the interface's) */
    static Map<Method, OutboundLimit> byMethod(Class<?> api) {
        OutboundRateLimit onType = api.getAnnotation(OutboundRateLimit.class);
        OutboundLimit typeLimit = onType == null ? null : of(onType);
        Map<Method, OutboundLimit> limits = new HashMap<>();
        for (Method m : api.getMethods()) {
            OutboundRateLimit own = m.getAnnotation(OutboundRateLimit.class);
            OutboundLimit l = own != null ? of(own) : typeLimit;
            if (l != null && m.getDeclaringClass() != Object.class) {
                limits.put(m, l);
            }
        }
        return limits;
    }
}
