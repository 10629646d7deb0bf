package io.sluice.core.policy;

import java.util.List;

/**
 * The settings of a bucket that refills ({@link GcraSettings}, {@link TokenBucketSettings},
 * {@link LeakyBucketSettings}): a {@code burst}, the requests that may pass at once and the limit a client is told.
 */
public interface BucketSettings extends Settings {

    /** The option {@code burst N}. */
    Option BURST = new Option("burst", Kind.COUNT);
    /** The options of a bucket that only bursts. */
    List<Option> BURST_ONLY = List.of(BURST);

    /** @return the capacity of the bucket, 0 for the limit */
    long burst();

    /** @return these settings with capacity {@code burst} (0: the limit) */
    BucketSettings withBurst(long burst);

    /** @return {@code burst} when positive, else {@code limit} */
    @Override
    default long capacity(long limit) {
        return burst() > 0 ? burst() : limit;
    }

    /** The burst is divided among the nodes, at least 1, and kept within the span a share's interval allows. */
    @Override
    default Settings share(long nodes, long intervalMicros) {
        if (burst() == 0) {
            return this;
        }
        // the share's interval grows when limit / nodes rounds down (limit 3 on 2 nodes: a share of 1, whose interval is
        // three times as long), and with it the span burst x interval, which Policy bounds: kept within that bound
        return withBurst(Math.min(Math.max(1, burst() / nodes), Policy.MAX_SPAN_MICROS / intervalMicros));
    }

    /** @return {@link #BURST_ONLY} */
    @Override
    default List<Option> options() {
        return BURST_ONLY;
    }

    /** Sets the burst; a bucket with more options reads those and hands {@code burst} here. */
    @Override
    default Settings with(String option, long value) {
        if (option.equals(BURST.name())) {
            return withBurst(value);
        }
        throw Bounds.unknown(this, option);
    }

    /** Appends {@code " burst N"} when a burst is set. */
    @Override
    default void format(StringBuilder out) {
        if (burst() > 0) {
            out.append(" burst ").append(burst());
        }
    }

    /** Checks the burst's bounds and the bucket's span, capacity x interval (see {@link Policy#MAX_SPAN_MICROS}). */
    @Override
    default void validate(long limit, long periodMicros) {
        Bounds.count("burst", burst(), "");
        Bounds.span(capacity(limit), limit, periodMicros);
    }
}
