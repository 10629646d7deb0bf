package io.sluice.core.policy;

/** For tests that run one scenario over several algorithms: the settings some of them take, applied where they do. */
public final class Policies {

    private Policies() {}

    /** @return {@code p} with burst {@code burst} when its algorithm's settings are a bucket's, else {@code p} */
    public static Policy burstWhereTaken(Policy p, long burst) {
        return p.settings() instanceof BucketSettings s ? p.withSettings(s.withBurst(burst)) : p;
    }

    /** @return {@code p} with staggered windows when it is a fixed window, else {@code p} */
    public static Policy staggeredWhereTaken(Policy p, boolean staggered) {
        return p.settings() instanceof FixedWindowSettings ? p.withSettings(new FixedWindowSettings(staggered)) : p;
    }
}
