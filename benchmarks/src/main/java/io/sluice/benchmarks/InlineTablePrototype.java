package io.sluice.benchmarks;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import io.sluice.core.algorithm.PrimitiveSteps;
import io.sluice.core.algorithm.Slots;
import io.sluice.core.time.TimeSource;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;

/**
 * A layout experiment for the keyed target ({@link Contenders#INLINE_TABLE}): what Sluice's GCRA decision costs over
 * many keys when a key's state lives inline in a table of {@code long}s instead of in a cell object behind a map entry.
 * The decision itself is Sluice's ({@link PrimitiveSteps#step}, an {@link Outcome}, the system {@link TimeSource}, the
 * expiry its TTL gives); the table is set-associative: a key hashes to a set of {@value #WAYS} slots, a slot holds a
 * lock word, the expiry and three state words, and parallel arrays hold the slot's rule and key, compared by
 * {@code equals} as a store must. A key arriving at a full set evicts the slot whose state expires first.
 *
 * <p>Not a store: two threads missing the same key at once may insert it twice; there is no reset, no count of
 * tracked keys, no multi-check lock order, no other algorithm. Measured only to learn whether the layout reaches the
 * target, as {@code benchmarks/RESULTS.md} reports.
 */
final class InlineTablePrototype implements Limiter {
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle REFS = MethodHandles.arrayElementVarHandle(Object[].class);
    private static final int WAYS = 8;
    /** Longs per slot: lock, expiry, s0, s1, s2. */
    private static final int STRIDE = 5;
    private static final String RULE = "bench";

    private final long[] slots;
    private final Object[] keys;
    private final Object[] rules;
    private final int shift;
    private final Policy policy = Policy.of(Algorithm.GCRA, Contenders.LIMIT_PER_SECOND, Duration.ofSeconds(1));
    private final TimeSource clock = TimeSource.system();

    /** @param keys the keys to hold: the table has a power of two of sets, at least 3/2 slots per key */
    InlineTablePrototype(int keys) {
        int sets = Integer.highestOneBit(Math.max(2, keys * 3 / 2 / WAYS) * 2 - 1);      // 2 or more: shift < 32
        this.shift = 32 - Integer.numberOfTrailingZeros(sets);
        this.slots = new long[sets * WAYS * STRIDE];
        this.keys = new Object[sets * WAYS];
        this.rules = new Object[sets * WAYS];
    }

    /** The step's view of one slot's state words, copied in and out under the slot's lock. */
    private static final class Scratch extends Slots {
        void load(long[] a, int base) {
            s0 = a[base + 2];
            s1 = a[base + 3];
            s2 = a[base + 4];
        }

        void store(long[] a, int base) {
            a[base + 2] = s0;
            a[base + 3] = s1;
            a[base + 4] = s2;
        }
    }

    @Override
    public boolean tryAcquire(String key) {
        int first = ((RULE.hashCode() * 31 + key.hashCode()) * 0x9E3779B9 >>> shift) * WAYS;
        long now = clock.nowMicros();
        while (true) {
            int slot = find(first, key);
            if (slot < 0) {
                slot = insert(first, key);
            }
            int base = slot * STRIDE;
            if (!LONGS.compareAndSet(slots, base, 0L, 1L)) {
                Thread.onSpinWait();
                continue;
            }
            try {
                if (!key.equals(keys[slot]) || !RULE.equals(rules[slot])) {
                    continue;       // evicted between the lookup and the lock: look again
                }
                Scratch s = new Scratch();
                boolean fresh = slots[base + 1] <= now;
                if (!fresh) {
                    s.load(slots, base);
                }
                Outcome o = PrimitiveSteps.step(Algorithm.GCRA, s, fresh, now, 1, policy);
                if (o.allowed()) {
                    s.store(slots, base);
                    slots[base + 1] = now + Math.max(1, PrimitiveSteps.ttlMicros(Algorithm.GCRA, s, now, policy));
                }
                return o.allowed();
            } finally {
                LONGS.setRelease(slots, base, 0L);
            }
        }
    }

    private int find(int first, String key) {
        for (int i = first; i < first + WAYS; i++) {
            Object k = REFS.getAcquire(keys, i);
            if ((k == key || (k != null && k.equals(key))) && RULE.equals(rules[i])) {
                return i;
            }
        }
        return -1;
    }

    /** @return the slot now holding {@code key}: an empty one of its set, else the one expiring first */
    private int insert(int first, String key) {
        int victim = first;
        long soonest = Long.MAX_VALUE;
        for (int i = first; i < first + WAYS; i++) {
            if (keys[i] == null) {
                victim = i;
                break;
            }
            if (slots[i * STRIDE + 1] < soonest) {
                soonest = slots[i * STRIDE + 1];
                victim = i;
            }
        }
        int base = victim * STRIDE;
        while (!LONGS.compareAndSet(slots, base, 0L, 1L)) {
            Thread.onSpinWait();
        }
        slots[base + 1] = 0;
        rules[victim] = RULE;
        REFS.setRelease(keys, victim, key);
        LONGS.setRelease(slots, base, 0L);
        return victim;
    }
}
