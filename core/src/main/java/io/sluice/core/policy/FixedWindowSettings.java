package io.sluice.core.policy;

import java.util.List;

/**
 * The settings of {@link Algorithm#FIXED_WINDOW}.
 *
 * @param staggered whether windows are offset per key, so that all clients do not reset at once
 */
public record FixedWindowSettings(boolean staggered) implements Settings {

    /** Windows aligned to the epoch, the same for every key. */
    public static final FixedWindowSettings DEFAULT = new FixedWindowSettings(false);

    /** The option {@code staggered}. */
    public static final Option STAGGERED = new Option("staggered", Kind.FLAG);
    private static final List<Option> OPTIONS = List.of(STAGGERED);

    @Override
    public Algorithm algorithm() {
        return Algorithm.FIXED_WINDOW;
    }

    @Override
    public List<Option> options() {
        return OPTIONS;
    }

    @Override
    public Settings with(String option, long value) {
        if (option.equals(STAGGERED.name())) {
            return new FixedWindowSettings(value != 0);
        }
        throw Bounds.unknown(this, option);
    }

    @Override
    public void format(StringBuilder out) {
        if (staggered) {
            out.append(" staggered");
        }
    }

    @Override
    public void validate(long limit, long periodMicros) {}
}
