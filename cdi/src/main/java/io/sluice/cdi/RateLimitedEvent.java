package io.sluice.cdi;

import io.sluice.core.Decision;
import io.sluice.core.request.RequestView;
import io.sluice.core.Rule;
import io.sluice.core.RuleOutcome;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;

/**
 * Fired as a CDI event for every request a front door denies (429, or 503 while the store is down and a rule denies
 * meanwhile), synchronously on the request thread: observe it with {@code void on(@Observes RateLimitedEvent e)}.
 *
 * @param rule the name of the binding rule, the one that denied
 * @param keyHash the first 16 bytes of SHA-256 of the rule name, a zero byte and the key, base64: the same value as
 *     the {@code pk} parameter of the IETF headers; never the key itself. Null when the rule has no key for the
 *     request (it counts it as {@code anonymous})
 * @param retryAfterMicros how long until the request would pass; {@link io.sluice.core.policy.Outcome#NEVER} when it never can
 * @param storeUnavailable whether the denial is a 503 because the store failed
 * @param method the HTTP method
 * @param path the path inside the application
 */
public record RateLimitedEvent(String rule, String keyHash, long retryAfterMicros, boolean storeUnavailable,
        String method, String path) {

    /**
     * @return the event a front door fires for a denied decision of {@code request} (also a way to build one in a test
     *     of an observer)
     */
    public static RateLimitedEvent of(RequestView request, Decision decision) {
        RuleOutcome binding = decision.binding();
        Rule rule = binding.rule();
        String key = rule.resolveKey(request);
        return new RateLimitedEvent(rule.name(), key == null ? null : hash(rule.name(), key),
                decision.retryAfterMicros(), decision.storeUnavailable(), request.method(), request.path());
    }

    static String hash(String rule, String key) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(rule.getBytes(StandardCharsets.UTF_8));
            sha.update((byte) 0);
            sha.update(key.getBytes(StandardCharsets.UTF_8));
            return Base64.getEncoder().encodeToString(Arrays.copyOf(sha.digest(), 16));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
