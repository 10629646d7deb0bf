package io.sluice.core;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A cheap estimate of each key's rate on this node, for leased permits: whether a key comes often enough that a block
 * of permits would pay for its take ({@link #hot}). One decayed counter per key in a table of fixed size
 * ({@value #SLOTS} slots of one {@code long}: 128 KiB whatever the number of keys), indexed by a hash of the rule and
 * the key, with a fingerprint of 16 bits so that keys sharing a slot do not add up their counts. Each lease time (the
 * policy's {@code leased}) halves a count: a key that comes {@code r} times per lease time counts between {@code r}
 * and {@code 2r}, and one seen once stays at one. Thread-safe without locks or atomic read-modify-writes: a slot is
 * read and written back (two threads at once may lose a count, one of a key busy enough to be counted again; a slot
 * is one {@code long}, never torn), and not written once the key counts {@value #SATURATED} in its lease time.
 *
 * <p>Keys that share a slot take it in turns: a key whose count in the slot has decayed to one or less gives the slot
 * to the next; else the newcomer only wears the count down by one. A busy key thus keeps its slot against cold keys;
 * a cold key that lost its slot only counts as colder, which costs a store call per request, never a permit.
 */
final class KeyRates {

    /** A key leases once its decayed count reaches this: at least half as many requests per lease time: {@value}. */
    static final int HOT = 8;
    /** Past this count a key's slot is only read: {@value}. */
    static final int SATURATED = 4 * HOT;
    /** The slots of the table: {@value}. */
    static final int SLOTS = 1 << 14;

    private static final int COUNT_BITS = 16;
    private static final int EPOCH_BITS = 32;
    private static final long COUNT_MASK = (1L << COUNT_BITS) - 1;
    private static final long EPOCH_MASK = (1L << EPOCH_BITS) - 1;

    /** Per slot: fingerprint (16 bits, never 0 in a used slot), epoch mod 2^32 (32 bits), count (16 bits). */
    private final AtomicLongArray slots = new AtomicLongArray(SLOTS);

    /**
     * Counts one request of {@code key} under {@code rule}.
     *
     * @param leaseMicros the policy's lease time: the period over which a count halves
     * @return whether the key now comes often enough to lease: a decayed count of at least {@value #HOT}
     */
    boolean hot(String rule, String key, long leaseMicros, long nowMicros) {
        int h = mix(rule.hashCode() * 31 + key.hashCode());
        int index = h & (SLOTS - 1);
        long fingerprint = (h >>> (32 - COUNT_BITS)) | 1;       // never 0: a slot of 0 is free
        long epoch = Math.floorDiv(nowMicros, Math.max(1, leaseMicros)) & EPOCH_MASK;
        long old = slots.get(index);
        long count = decayed(old, epoch);
        long next;
        if (old >>> (EPOCH_BITS + COUNT_BITS) == fingerprint) {
            if (count >= SATURATED && epochOf(old) == epoch) {
                return true;                    // busy: read only
            }
            count = Math.min(count + 1, COUNT_MASK);
            next = pack(fingerprint, epoch, count);
        } else if (count <= 1) {
            count = 1;                          // the slot is free, or its key has gone quiet: this key's now
            next = pack(fingerprint, epoch, 1);
        } else {
            next = pack(old >>> (EPOCH_BITS + COUNT_BITS), epoch, count - 1);   // the slot's key keeps it
            count = 0;
        }
        slots.setRelease(index, next);
        return count >= HOT;
    }

    /** @return the number of slots in use (tests: the table never grows) */
    int slotsInUse() {
        int used = 0;
        for (int i = 0; i < SLOTS; i++) {
            used += slots.get(i) == 0 ? 0 : 1;
        }
        return used;
    }

    /** @return the slot's count at {@code epoch}, halved once per lease time since it was written */
    private static long decayed(long slot, long epoch) {
        long elapsed = (epoch - epochOf(slot)) & EPOCH_MASK;         // mod 2^32: a clock set back reads as far ahead
        return elapsed >= COUNT_BITS ? 0 : (slot & COUNT_MASK) >>> elapsed;
    }

    private static long epochOf(long slot) {
        return (slot >>> COUNT_BITS) & EPOCH_MASK;
    }

    private static long pack(long fingerprint, long epoch, long count) {
        return fingerprint << (EPOCH_BITS + COUNT_BITS) | epoch << COUNT_BITS | count;
    }

    /** Spreads a hash over all its bits (the finalizer of MurmurHash3). */
    private static int mix(int h) {
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        return h ^ (h >>> 16);
    }
}
