package io.sluice.benchmarks;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.sluice.core.policy.Algorithm;
import io.sluice.core.Engine;
import io.sluice.core.KeyLimiter;
import io.sluice.core.policy.Policy;
import io.sluice.core.store.MemoryStore;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Builds every contender with the same limit: {@value #LIMIT_PER_SECOND} permits per second, burst equal to the
 * limit. No contender reaches that rate on this machine, so (almost) every call takes the allowed path, the path
 * a healthy service takes on nearly every request; the denied counters of the benchmarks show it.
 *
 * <p>Sluice is measured through its programmatic API over the default {@link MemoryStore}: keyed, through
 * {@code Limiter.tryAcquire(key)} (what {@link Engine#tryAcquire(String, String, Policy, long)} does); on one key,
 * through the key's handle {@code Limiter.key(key).tryAcquire()}, as the peers' single-key limiters are objects for
 * one key (the keyed call on that one key is measured beside it, {@value #SLUICE_GCRA_KEYED_CALL}). The peers are
 * measured through their own try-acquire calls. Keyed peers hold one limiter per key either in a
 * {@link ConcurrentHashMap} (get, then computeIfAbsent on a miss: the usual idiom; unbounded) or, as Sluice's memory
 * store holds its cells, in a bounded Caffeine cache ({@value #GUAVA_CAFFEINE}, {@value #BUCKET4J_CAFFEINE}).
 */
final class Contenders {

    /** The one limit every contender enforces: {@value} permits per second. */
    static final long LIMIT_PER_SECOND = 1_000_000_000L;

    /** Contender names accepted by {@link #single} and {@link #keyed}. */
    static final String SLUICE_GCRA = "sluice-gcra";
    static final String SLUICE_TOKEN_BUCKET = "sluice-token-bucket";
    static final String SLUICE_FIXED_WINDOW = "sluice-fixed-window";
    static final String SLUICE_SLIDING_WINDOW = "sluice-sliding-window";
    /** Single key only: Sluice's GCRA through the keyed call ({@code Limiter.tryAcquire(key)}), a lookup per call. */
    static final String SLUICE_GCRA_KEYED_CALL = "sluice-gcra-keyed-call";
    static final String GUAVA = "guava";
    static final String RESILIENCE4J = "resilience4j";
    static final String BUCKET4J = "bucket4j";
    /**
     * Keyed only: Guava's {@code RateLimiter}s held in a bounded Caffeine cache ({@link #inCaffeine}), as a service
     * bounds its limiters; Sluice's memory store holds its cells in such a cache too.
     */
    static final String GUAVA_CAFFEINE = "guava-caffeine";
    /** Keyed only: Bucket4j's local {@code Bucket}s in a bounded Caffeine cache, as Spring users run Bucket4j. */
    static final String BUCKET4J_CAFFEINE = "bucket4j-caffeine";
    /**
     * How long a key of the Caffeine-held peers stays after its last use: a second (the refill period, after which an
     * idle limiter is full, so a fresh one answers the same) plus the minute for which Sluice's store keeps a cell
     * after its state expired ({@code MemoryStore.SWEEP_GRACE_MICROS}). No key of the benchmark is idle that long.
     */
    static final Duration CAFFEINE_IDLE = Duration.ofSeconds(61);
    /** Keyed only: a bare {@link ConcurrentHashMap#get} of the same keys, the floor of any keyed limiter. */
    static final String MAP_LOOKUP = "map-lookup";
    /**
     * Keyed only: the least any thread-safe keyed limiter does — a {@link ConcurrentHashMap} lookup, one
     * {@code System.nanoTime} and one compare-and-set of a GCRA time in a per-key {@link CasCell}; no bound on the
     * number of keys, no expiry, no outcome numbers. A floor to read the keyed target against, not a contender.
     */
    static final String MAP_CLOCK_CAS = "map-clock-cas";
    /**
     * Single key only: the least any thread-safe limiter of one key does — one {@code System.nanoTime} and one
     * compare-and-set of a GCRA time in a {@link CasCell}; no outcome numbers, no expiry. A floor to read the
     * single-key target against (Resilience4j's {@code AtomicRateLimiter} is such a loop), not a contender.
     */
    static final String CLOCK_CAS = "clock-cas";
    /**
     * Keyed only, a layout experiment: {@link #MAP_CLOCK_CAS} without the map's table and node — a 4-way
     * set-associative array of cells, each holding its key, with the map only for keys the array cannot hold. One
     * dependent object fewer than the map; not a contender.
     */
    static final String ARRAY_OF_CELLS = "array-of-cells";
    /**
     * Keyed only, a layout experiment: Sluice's own GCRA step ({@code PrimitiveSteps}, {@code Outcome}, the system
     * {@code TimeSource}) on state held inline in a table of {@code long}s: {@link InlineTablePrototype}. Not a
     * contender: it lacks what a store needs (see its documentation).
     */
    static final String INLINE_TABLE = "inline-table";

    private Contenders() {}

    /** @return a limiter for one hot key */
    static Limiter single(String name) {
        String key = "client-42";
        return switch (name) {
            case SLUICE_GCRA, SLUICE_TOKEN_BUCKET, SLUICE_FIXED_WINDOW, SLUICE_SLIDING_WINDOW -> {
                KeyLimiter handle = sluiceLimiter(name).key(key);
                yield k -> handle.tryAcquire();
            }
            case SLUICE_GCRA_KEYED_CALL -> sluice(SLUICE_GCRA);
            case GUAVA -> {
                com.google.common.util.concurrent.RateLimiter limiter = guava();
                yield k -> limiter.tryAcquire();
            }
            case RESILIENCE4J -> {
                RateLimiter limiter = resilience4j(key);
                yield k -> limiter.acquirePermission();
            }
            case BUCKET4J -> {
                Bucket bucket = bucket4j();
                yield k -> bucket.tryConsume(1);
            }
            case CLOCK_CAS -> {
                CasCell cell = new CasCell(1, 1_000_000_000L);
                yield k -> cell.acquire(System.nanoTime());
            }
            default -> throw new IllegalArgumentException("unknown single-key contender " + name);
        };
    }

    /** @return a limiter over {@code keys}, every key already tracked (steady state: no key is new) */
    static Limiter keyed(String name, String[] keys) {
        Limiter limiter = switch (name) {
            case SLUICE_GCRA, SLUICE_TOKEN_BUCKET, SLUICE_FIXED_WINDOW, SLUICE_SLIDING_WINDOW -> sluice(name);
            case GUAVA -> perKey(k -> guava(), com.google.common.util.concurrent.RateLimiter::tryAcquire);
            case RESILIENCE4J -> perKey(Contenders::resilience4j, RateLimiter::acquirePermission);
            case BUCKET4J -> perKey(k -> bucket4j(), b -> b.tryConsume(1));
            case GUAVA_CAFFEINE -> inCaffeine(k -> guava(), l -> l.tryAcquire());
            case BUCKET4J_CAFFEINE -> inCaffeine(k -> bucket4j(), b -> b.tryConsume(1));
            case MAP_LOOKUP -> {
                Map<String, Object> map = new ConcurrentHashMap<>();
                for (String k : keys) {
                    map.put(k, Boolean.TRUE);
                }
                yield k -> map.get(k) != null;
            }
            case MAP_CLOCK_CAS -> perKey(k -> new CasCell(1, 1_000_000_000L), c -> c.acquire(System.nanoTime()));
            case ARRAY_OF_CELLS -> arrayOfCells();
            case INLINE_TABLE -> new InlineTablePrototype(Keys.COUNT);
            default -> throw new IllegalArgumentException("unknown keyed contender " + name);
        };
        for (String k : keys) {
            limiter.tryAcquire(k);
        }
        return limiter;
    }

    /** {@link #ARRAY_OF_CELLS}: up to 4 cells per set of the array, found by their key; the map holds the rest. */
    private static Limiter arrayOfCells() {
        KeyedCell[] array = new KeyedCell[1 << 18];
        int setMask = (1 << 18) - 4;
        Map<String, KeyedCell> overflow = new ConcurrentHashMap<>();
        return k -> {
            int h = k.hashCode() * 0x9E3779B9;
            int set = (h ^ (h >>> 16)) & setMask;
            for (int i = set; i < set + 4; i++) {
                KeyedCell c = array[i];         // racy on purpose: a cell's key is final, its time volatile
                if (c != null && (c.key == k || c.key.equals(k))) {
                    return c.acquire(System.nanoTime());
                }
            }
            KeyedCell c = overflow.computeIfAbsent(k, KeyedCell::new);
            for (int i = set; i < set + 4; i++) {
                if (array[i] == null) {
                    array[i] = c;
                    break;
                }
            }
            return c.acquire(System.nanoTime());
        };
    }

    /** Sluice keyed: {@code Limiter.tryAcquire(key)}, a lookup of the key's state per call. */
    private static Limiter sluice(String name) {
        io.sluice.core.Limiter limiter = sluiceLimiter(name);
        return limiter::tryAcquire;
    }

    private static io.sluice.core.Limiter sluiceLimiter(String name) {
        Policy policy = Policy.of(algorithm(name), LIMIT_PER_SECOND, Duration.ofSeconds(1));
        Engine engine = Engine.builder().store(MemoryStore.create()).build();
        return engine.limiter("bench", policy);
    }

    static Algorithm algorithm(String name) {
        return switch (name) {
            case SLUICE_GCRA -> Algorithm.GCRA;
            case SLUICE_TOKEN_BUCKET -> Algorithm.TOKEN_BUCKET;
            case SLUICE_FIXED_WINDOW -> Algorithm.FIXED_WINDOW;
            case SLUICE_SLIDING_WINDOW -> Algorithm.SLIDING_WINDOW;
            default -> throw new IllegalArgumentException("not a Sluice contender: " + name);
        };
    }

    static com.google.common.util.concurrent.RateLimiter guava() {
        return com.google.common.util.concurrent.RateLimiter.create(LIMIT_PER_SECOND);
    }

    static RateLimiter resilience4j(String key) {
        return RateLimiter.of(key, RateLimiterConfig.custom()
                .limitForPeriod((int) LIMIT_PER_SECOND)
                .limitRefreshPeriod(Duration.ofSeconds(1))
                .timeoutDuration(Duration.ZERO)
                .build());
    }

    static Bucket bucket4j() {
        return Bucket.builder()
                .addLimit(Bandwidth.builder().capacity(LIMIT_PER_SECOND)
                        .refillGreedy(LIMIT_PER_SECOND, Duration.ofSeconds(1)).build())
                .build();
    }

    /** A peer keyed through a map of limiters, one per key. */
    private static <L> Limiter perKey(Function<String, L> create, Predicate<L> acquire) {
        Map<String, L> limiters = new ConcurrentHashMap<>();
        return k -> {
            L limiter = limiters.get(k);
            if (limiter == null) {
                limiter = limiters.computeIfAbsent(k, create);
            }
            return acquire.test(limiter);
        };
    }

    /**
     * A peer keyed through a bounded Caffeine cache of limiters, one per key: the bound of Sluice's memory store
     * ({@link MemoryStore#DEFAULT_MAXIMUM_KEYS}), evicted by W-TinyLFU as Sluice's cells are, and an expiry after
     * {@link #CAFFEINE_IDLE} without access, as Sluice's idle state expires. Caffeine's defaults otherwise (its
     * maintenance on the common pool), as a service configures it; {@code cache.get(key, create)} per call.
     */
    private static <L> Limiter inCaffeine(Function<String, L> create, Predicate<L> acquire) {
        Cache<String, L> limiters = Caffeine.newBuilder()
                .maximumSize(MemoryStore.DEFAULT_MAXIMUM_KEYS)
                .expireAfterAccess(CAFFEINE_IDLE)
                .build();
        return k -> acquire.test(limiters.get(k, create));
    }

    /**
     * One key's GCRA theoretical arrival time, in nanoseconds, moved by compare-and-set ({@link #MAP_CLOCK_CAS},
     * {@link #CLOCK_CAS}).
     */
    static class CasCell {
        private static final VarHandle TAT;

        static {
            try {
                TAT = MethodHandles.lookup().findVarHandle(CasCell.class, "tat", long.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private final long intervalNanos;
        private final long toleranceNanos;
        private volatile long tat = Long.MIN_VALUE / 2;

        /** {@code (1, 10^9)}: {@value #LIMIT_PER_SECOND} per second, one second of burst, as every contender. */
        CasCell(long intervalNanos, long toleranceNanos) {
            this.intervalNanos = intervalNanos;
            this.toleranceNanos = toleranceNanos;
        }

        boolean acquire(long now) {
            while (true) {
                long old = tat;
                long next = Math.max(old, now) + intervalNanos;
                if (next - toleranceNanos > now) {
                    return false;
                }
                if (TAT.compareAndSet(this, old, next)) {
                    return true;
                }
            }
        }
    }

    /** A {@link CasCell} that holds its key ({@link #ARRAY_OF_CELLS}). */
    static final class KeyedCell extends CasCell {
        final String key;

        KeyedCell(String key) {
            super(1, 1_000_000_000L);
            this.key = key;
        }
    }
}
