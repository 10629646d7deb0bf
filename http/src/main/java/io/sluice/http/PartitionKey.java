package io.sluice.http;

import io.sluice.core.Rule;
import io.sluice.core.request.RequestView;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;

/** The {@code pk} of the IETF fields ({@link Responder.Builder#partitionKey}): never the key itself. */
final class PartitionKey {

    private PartitionKey() {}

    /** @return the first 16 bytes of SHA-256 of {@code rule}'s name and the key of {@code request}, in Base64 */
    static String of(Rule rule, RequestView request) {
        String key = rule.resolveKey(request);
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(rule.name().getBytes(StandardCharsets.UTF_8));
            sha.update((byte) 0);
            sha.update((key == null ? Rule.ANONYMOUS_KEY : key).getBytes(StandardCharsets.UTF_8));
            return Base64.getEncoder().encodeToString(Arrays.copyOf(sha.digest(), 16));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
