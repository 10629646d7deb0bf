package io.sluice.jaxrs;

import io.sluice.core.key.ClientIpResolver;
import io.sluice.core.key.KeyResolver;
import io.sluice.jaxrs.internal.MethodRules;
import java.lang.reflect.Method;
import java.util.Map;

/** For the tests of {@code io.sluice.jaxrs.internal}: the rules of an annotated method, read as the feature does. */
public final class AnnotatedRules {

    private AnnotatedRules() {}

    /** @return the rules of {@code method}'s {@code @RateLimit} annotations and its class's, enforced (not shadow) */
    public static MethodRules of(Class<?> resource, Method method, ClientIpResolver ips,
            Map<String, KeyResolver> custom) {
        return RateLimitAnnotations.rulesOf(resource, method, ips, custom, false);
    }
}
