package io.sluice.core.policy;

/**
 * The settings of {@link Algorithm#GCRA}: its burst.
 *
 * @param burst the requests that may pass at once, 0 for the limit
 */
public record GcraSettings(long burst) implements BucketSettings {

    /** The limit passes at once. */
    public static final GcraSettings DEFAULT = new GcraSettings(0);

    @Override
    public Algorithm algorithm() {
        return Algorithm.GCRA;
    }

    @Override
    public GcraSettings withBurst(long b) {
        return new GcraSettings(b);
    }
}
