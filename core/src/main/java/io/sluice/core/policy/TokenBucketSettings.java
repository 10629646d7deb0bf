package io.sluice.core.policy;

/**
 * The settings of {@link Algorithm#TOKEN_BUCKET}: its burst, the capacity refilled at the rate.
 *
 * @param burst the capacity of the bucket (tokens), 0 for the limit
 */
public record TokenBucketSettings(long burst) implements BucketSettings {

    /** A bucket of the limit. */
    public static final TokenBucketSettings DEFAULT = new TokenBucketSettings(0);

    @Override
    public Algorithm algorithm() {
        return Algorithm.TOKEN_BUCKET;
    }

    @Override
    public TokenBucketSettings withBurst(long b) {
        return new TokenBucketSettings(b);
    }
}
