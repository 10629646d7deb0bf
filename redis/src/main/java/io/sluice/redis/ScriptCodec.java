package io.sluice.redis;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.sluice.core.algorithm.Algorithms;
import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import io.sluice.core.store.Check;
import io.sluice.core.store.Lease;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What {@code sluice.lua} reads and answers: a request's checks encoded as the script's {@code KEYS} and {@code ARGV},
 * and its reply decoded into {@link Outcome}s. Every encoding the script and this library must agree on is here: the
 * modes, the algorithms' codes, the numbers each algorithm reads and their order, the packed reply.
 *
 * <p>Encoding is on every request's path: a policy's numbers are encoded once and cached, small numbers come from a
 * table, and each call allocates only the argument array and the bytes that differ per request.
 */
final class ScriptCodec {

    private static final byte[] EVALUATE = {'e'};
    private static final byte[] EVALUATE_ALL = {'E'};
    /** The mode of a request of one enforced GCRA check of cost 1, the most common: the script's shortest path. */
    private static final byte[] ONE_GCRA = {'g'};
    /** The algorithms the script runs inline; the others need its library (mode 'E'). */
    private static final Set<Algorithm> INLINE = EnumSet.of(Algorithm.GCRA, Algorithm.TOKEN_BUCKET,
            Algorithm.FIXED_WINDOW, Algorithm.LEAKY_BUCKET);
    private static final byte[] EMPTY = {};
    private static final byte[][] NUMBERS = new byte[1024][];
    /** Encoded policies, bounded: a process that sees ever new policies (per-tenant tiers, reloads) keeps the recent ones. */
    private static final Cache<Policy, byte[][]> SPECS = Caffeine.newBuilder().maximumSize(RedisStore.MAX_CACHED)
            .executor(Runnable::run).build();

    static {
        for (int i = 0; i < NUMBERS.length; i++) {
            NUMBERS[i] = Integer.toString(i).getBytes(StandardCharsets.US_ASCII);
        }
    }

    private final RedisKeys keys;
    private final boolean applicationTime;
    /** This store's part of the sliding log's request ids, which name the members of its sorted sets. */
    private final String node = UUID.randomUUID().toString().substring(0, 8);
    private final AtomicLong requests = new AtomicLong();

    /** @param applicationTime whether the script gets the application's time, or reads Redis {@code TIME} */
    ScriptCodec(RedisKeys keys, boolean applicationTime) {
        this.keys = keys;
        this.applicationTime = applicationTime;
    }

    /** @return the time the script's mode argument carries: the application's, or none (the script reads Redis's) */
    byte[] now(long nowMicros) {
        return applicationTime ? number(nowMicros) : EMPTY;
    }

    /** @return the request's id when a check of it is a sliding log's, which names its members; else empty */
    byte[] requestId(List<Check> checks) {
        for (int i = 0; i < checks.size(); i++) {
            if (checks.get(i).policy().algorithm() == Algorithm.SLIDING_LOG) {   // only the log names its members
                return (node + "-" + Long.toString(requests.incrementAndGet(), 36)).getBytes(StandardCharsets.UTF_8);
            }
        }
        return EMPTY;
    }

    /**
     * The script's arguments, keys first: the mode ({@code e}: every check inline; {@code E}: some need the script's
     * library; {@code g}: one enforced GCRA check of cost 1, then only its capacity and interval) followed by the
     * application's time when it is passed; in mode {@code E} the request id; per check its algorithm's code (upper
     * case: shadow) followed by its cost unless it is 1, then only the numbers its algorithm reads (cached per policy,
     * already encoded).
     *
     * @param group the indexes of the checks of one hash slot; null for all of them
     * @param keys the checks' keys, already encoded; null to encode them here
     * @param now from {@link #now}
     * @param requestId from {@link #requestId}
     */
    byte[][] params(List<Check> checks, List<Integer> group, byte[][] keys, byte[] now, byte[] requestId) {
        int n = group == null ? checks.size() : group.size();
        if (n == 1) {
            int i = group == null ? 0 : group.get(0);
            Check c = checks.get(i);
            if (c.cost() == 1 && !c.shadow() && c.policy().algorithm() == Algorithm.GCRA) {
                byte[][] spec = spec(c.policy());           // capacity and interval
                return new byte[][] {keys != null ? keys[i] : this.keys.bytes(c.rule(), c.key()),
                        now.length == 0 ? ONE_GCRA : concat(ONE_GCRA, now), spec[2], spec[3]};
            }
        }
        byte[][][] specs = new byte[n][][];
        int size = n + 1;
        boolean inline = true;
        for (int k = 0; k < n; k++) {
            Check c = checks.get(group == null ? k : group.get(k));
            specs[k] = spec(c.policy());
            inline &= INLINE.contains(c.policy().algorithm());
            size += specs[k].length - 1;        // code and cost, the numbers (the spec holds two codes)
            Algorithm a = c.policy().algorithm();
            if (a == Algorithm.FIXED_WINDOW || a == Algorithm.CONCURRENCY) {
                size++;                         // the stagger offset, the lease id
            }
        }
        byte[][] params = new byte[inline ? size : size + 1][];
        int at = n;
        byte[] mode = inline ? EVALUATE : EVALUATE_ALL;        // then the application's time, if it is passed
        params[at++] = now.length == 0 ? mode : concat(mode, now);
        if (!inline) {
            params[at++] = requestId;
        }
        for (int k = 0; k < n; k++) {
            int i = group == null ? k : group.get(k);
            Check c = checks.get(i);
            params[k] = keys != null ? keys[i] : this.keys.bytes(c.rule(), c.key());
            at = putCheck(params, at, c, specs[k]);
        }
        return params;
    }

    /**
     * Writes a check's arguments from {@code at}: its code (and cost), its policy's numbers, and the fixed window's
     * stagger offset or the concurrency limit's lease id.
     *
     * @return where the next check's arguments start
     */
    private static int putCheck(byte[][] params, int at, Check c, byte[][] spec) {
        byte[] code = spec[c.shadow() ? 1 : 0];
        params[at++] = c.cost() == 1 ? code : concat(code, Long.toString(c.cost()).getBytes(StandardCharsets.US_ASCII));
        for (int f = 2; f < spec.length; f++) {
            params[at++] = spec[f];
        }
        Algorithm a = c.policy().algorithm();
        if (a == Algorithm.FIXED_WINDOW) {
            params[at++] = number(Algorithms.staggerOffsetMicros(c.key(), c.policy()));
        } else if (a == Algorithm.CONCURRENCY) {
            params[at++] = c.leaseId() == null ? EMPTY : c.leaseId().getBytes(StandardCharsets.UTF_8);
        }
        return at;
    }

    /**
     * The arguments of releasing leases: their keys, the mode {@code r} (with the application's time when it is
     * passed), then their ids.
     *
     * @param group the indexes of the leases of one hash slot; null for all of them
     * @param keys every lease's key, encoded
     */
    byte[][] release(List<Lease> leases, List<Integer> group, byte[][] keys, long nowMicros) {
        int n = group == null ? keys.length : group.size();
        byte[][] params = new byte[2 * n + 1][];
        params[n] = (applicationTime ? "r" + nowMicros : "r").getBytes(StandardCharsets.US_ASCII);
        for (int k = 0; k < n; k++) {
            int i = group == null ? k : group.get(k);
            params[k] = keys[i];
            params[n + 1 + k] = leases.get(i).id().getBytes(StandardCharsets.UTF_8);
        }
        return params;
    }

    /** A policy's code (enforced, shadow) and the numbers its algorithm reads, encoded once per policy. */
    private static byte[][] spec(Policy p) {
        byte[][] spec = SPECS.getIfPresent(p);
        return spec != null ? spec : SPECS.get(p, ScriptCodec::encode);
    }

    private static byte[][] encode(Policy p) {
        long cap = p.capacity();
        long interval = p.intervalMicros();
        long[] numbers = switch (p.algorithm()) {
            case GCRA, TOKEN_BUCKET -> new long[] {cap, interval};
            case LEAKY_BUCKET -> new long[] {cap, interval, p.maxWaitMicros(),
                    Math.min(p.delayThreshold(), cap)};   // as LeakyBucket: above the capacity it delays nothing
            case FIXED_WINDOW, SLIDING_WINDOW -> new long[] {p.limit(), p.periodMicros()};
            case WARM_UP -> new long[] {p.limit(), p.periodMicros(), p.warmupMicros(), p.coldFactor()};
            case SLIDING_LOG -> new long[] {p.limit(), p.periodMicros(), p.minIntervalMicros(), p.countRejected() ? 1 : 0};
            case CONCURRENCY -> new long[] {p.limit(), p.leaseTimeoutMicros()};
        };
        char code = switch (p.algorithm()) {
            case GCRA -> 'g';
            case TOKEN_BUCKET -> 't';
            case LEAKY_BUCKET -> 'k';
            case FIXED_WINDOW -> 'f';
            case SLIDING_WINDOW -> 's';
            case WARM_UP -> 'w';
            case SLIDING_LOG -> 'l';
            case CONCURRENCY -> 'c';
        };
        byte[][] spec = new byte[2 + numbers.length][];
        spec[0] = new byte[] {(byte) code};
        spec[1] = new byte[] {(byte) Character.toUpperCase(code)};
        for (int i = 0; i < numbers.length; i++) {
            spec[2 + i] = Long.toString(numbers[i]).getBytes(StandardCharsets.US_ASCII);
        }
        return spec;
    }

    /** The outcomes of the checks from the reply of one script call for all of them. */
    static List<Outcome> outcomes(Object reply, List<Check> checks) {
        if (reply instanceof Long packed) {
            return List.of(admitted(packed, checks.get(0).policy()));
        }
        int n = checks.size();
        Outcome[] out = new Outcome[n];
        for (int i = 0; i < n; i++) {
            out[i] = outcome((List<?>) reply, i, checks.get(i).policy());
        }
        return Arrays.asList(out);
    }

    /** Cluster: the outcomes of the checks, in their order, from the replies of the calls of each group of them. */
    static List<Outcome> outcomes(List<Object> replies, List<List<Integer>> groups, List<Check> checks) {
        Outcome[] out = new Outcome[checks.size()];
        for (int g = 0; g < groups.size(); g++) {
            Object reply = replies.get(g);
            List<Integer> group = groups.get(g);
            for (int k = 0; k < group.size(); k++) {
                int i = group.get(k);
                out[i] = reply instanceof Long packed ? admitted(packed, checks.get(i).policy())
                        : outcome((List<?>) reply, k, checks.get(i).policy());
            }
        }
        return Arrays.asList(out);
    }

    /**
     * Check {@code k}'s outcome from a reply of 4 integers per check: 0 when denied else 1 + delay, remaining,
     * reset-after, retry-after. (One check admitted at once may be one integer instead: see {@link #admitted}.)
     */
    private static Outcome outcome(List<?> reply, int k, Policy p) {
        int at = 4 * k;
        long allowed = ((Number) reply.get(at)).longValue();
        long retry = ((Number) reply.get(at + 3)).longValue();
        return new Outcome(allowed > 0, limit(p), ((Number) reply.get(at + 1)).longValue(),
                ((Number) reply.get(at + 2)).longValue(), retry < 0 ? Outcome.NEVER : retry, allowed > 0 ? allowed - 1 : 0);
    }

    /**
     * One check admitted at once, in the script's packed form: reset-after x (limit + 1) + remaining (packed only when
     * below 2^53, so exact in Lua's doubles).
     */
    private static Outcome admitted(long packed, Policy p) {
        long limit = limit(p);
        return Outcome.allow(limit, packed % (limit + 1), packed / (limit + 1));
    }

    private static long limit(Policy p) {
        return switch (p.algorithm()) {
            case GCRA, TOKEN_BUCKET, LEAKY_BUCKET -> p.capacity();
            default -> p.limit();
        };
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static byte[] number(long n) {
        return n >= 0 && n < NUMBERS.length ? NUMBERS[(int) n] : Long.toString(n).getBytes(StandardCharsets.US_ASCII);
    }
}
