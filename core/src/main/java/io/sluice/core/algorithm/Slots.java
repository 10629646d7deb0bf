package io.sluice.core.algorithm;

/**
 * Mutable primitive state of one key, for the stores' allocation-free path: up to three longs whose meaning is that of
 * the algorithm's immutable {@code State} record, field for field (see {@link PrimitiveSteps}). Not thread-safe: the
 * store that owns a {@code Slots} guards it with its own lock. Internal to Sluice's stores.
 */
public class Slots {
    /** The first field of the algorithm's state record. */
    protected long s0;
    /** The second field, when the algorithm has one. */
    protected long s1;
    /** The third field, when the algorithm has one. */
    protected long s2;

    protected Slots() {}
}
