package io.sluice.core.key;

import io.sluice.core.RequestView;

/** Finds the partition a rule counts a request in: client IP, API key, tenant, principal, or a combination. */
@FunctionalInterface
public interface KeyResolver {

    /**
     * @return the key, or null when the request has none (no principal, no such header); the rule then either skips
     *     the request or counts it under an anonymous key
     */
    String resolve(RequestView request);
}
