package io.sluice.core.key;

import io.sluice.core.request.RequestView;

/** Finds the partition a rule counts a request in: client IP, API key, tenant, principal, or a combination. */
@FunctionalInterface
public interface KeyResolver {

    /**
     * The key a rule counts requests under when their resolver threw (and gave no key of its own for them):
     * {@value}. Its {@code #} cannot start a key that a resolver parsed from configuration produces.
     */
    String FAILED_KEY = "#key-failed";

    /**
     * @return the key, or null when the request has none (no principal, no such header); the rule then either skips
     *     the request or counts it under an anonymous key
     */
    String resolve(RequestView request);

    /**
     * The key a rule counts a request under when {@link #resolve} threw on it (an application's resolver on a malformed
     * token, say): the request neither fails nor skips the rule.
     *
     * <p>By default {@link #FAILED_KEY}, one key for every such request. The resolvers parsed from configuration
     * ({@link KeyResolvers#parse}) answer {@code #key-failed|<client address>} instead, so one client that keeps
     * failing exhausts only its own share.
     *
     * @return the key; null stands for {@link #FAILED_KEY}
     */
    default String keyOnFailure(RequestView request) {
        return FAILED_KEY;
    }
}
