package io.sluice.core.policy;

import java.util.List;

/** The settings of {@link Algorithm#SLIDING_WINDOW}: none beyond the rate. */
public record SlidingWindowSettings() implements Settings {

    /** The one instance. */
    public static final SlidingWindowSettings DEFAULT = new SlidingWindowSettings();

    @Override
    public Algorithm algorithm() {
        return Algorithm.SLIDING_WINDOW;
    }

    @Override
    public List<Option> options() {
        return List.of();
    }

    @Override
    public Settings with(String option, long value) {
        throw Bounds.unknown(this, option);
    }

    @Override
    public void format(StringBuilder out) {}

    @Override
    public void validate(long limit, long periodMicros) {}
}
