package io.sluice.redis;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.sluice.core.algorithm.Algorithms;
import io.sluice.core.algorithm.Definition;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import io.sluice.core.store.Check;
import io.sluice.core.store.Lease;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the script reads and answers: a request's checks encoded as the script's {@code KEYS} and {@code ARGV}, and
 * its reply decoded into {@link Outcome}s. The encodings of the skeleton {@code sluice.lua} are here (the modes, the
 * code and cost of each check, the packed reply); what each algorithm sends after its code (its numbers and their
 * order, read by its Lua fragment) is its own, written by its {@link Definition}.
 *
 * <p>Encoding is on every request's path: a policy's numbers are encoded once and cached, small numbers come from a
 * table, and each call allocates only the argument array and the bytes that differ per request.
 */
final class ScriptCodec {

    private static final byte[] EVALUATE = {'e'};
    private static final byte[] EVALUATE_ALL = {'E'};
    private static final byte[] BATCH = {'b'};
    private static final byte[] EMPTY = {};
    private static final byte[][] NUMBERS = new byte[1024][];
    /** Whether a character is the code of an algorithm with a fast mode: the first of such a call's arguments. */
    private static final boolean[] FAST = new boolean[128];
    /** Encoded policies, bounded: a process that sees ever new policies (per-tenant tiers, reloads) keeps the recent ones. */
    private static final Cache<Policy, Spec> SPECS = Caffeine.newBuilder().maximumSize(RedisStore.MAX_CACHED)
            .executor(Runnable::run).build();

    static {
        for (int i = 0; i < NUMBERS.length; i++) {
            NUMBERS[i] = Integer.toString(i).getBytes(StandardCharsets.US_ASCII);
        }
        for (Definition d : Algorithms.all()) {
            FAST[d.code()] = d.fast();
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
            if (Algorithms.definition(checks.get(i).policy().algorithm()).namesMembers()) {
                return (node + "-" + Long.toString(requests.incrementAndGet(), 36)).getBytes(StandardCharsets.UTF_8);
            }
        }
        return EMPTY;
    }

    /**
     * The script's arguments, keys first: the mode ({@code e}: every check inline; {@code E}: some need the script's
     * library) followed by the application's time when it is passed; in mode {@code E} the request id; per check its
     * algorithm's code (upper case: shadow) followed by its cost unless it is 1, then the numbers its algorithm reads
     * (cached per policy, already encoded) and the arguments of the check itself. One enforced check of cost 1 of an
     * algorithm with a fast mode is sent in that mode instead: its code and its policy's numbers in one argument
     * ({@code g1000:1000}), then the application's time when it is passed.
     *
     * @param group the indexes of the checks of one hash slot; null for all of them
     * @param keys the checks' keys, already encoded; null to encode them here
     * @param now from {@link #now}
     * @param requestId from {@link #requestId}
     */
    byte[][] params(List<Check> checks, List<Integer> group, byte[][] keys, byte[] now, byte[] requestId) {
        return params(checks, group, keys, now, requestId, true);
    }

    /** @param fast whether a request of one check may take its algorithm's fast mode (not inside a batch) */
    byte[][] params(List<Check> checks, List<Integer> group, byte[][] keys, byte[] now, byte[] requestId,
            boolean fast) {
        int n = group == null ? checks.size() : group.size();
        if (n == 1 && fast) {
            int i = group == null ? 0 : group.get(0);
            Check c = checks.get(i);
            if (c.cost() == 1 && !c.shadow() && Algorithms.definition(c.policy().algorithm()).fast()) {
                return fast(c, keys != null ? keys[i] : this.keys.bytes(c.rule(), c.key()), now);
            }
        }
        byte[][][] specs = new byte[n][][];
        int size = n + 1;
        boolean inline = true;
        for (int k = 0; k < n; k++) {
            Check c = checks.get(group == null ? k : group.get(k));
            Definition d = Algorithms.definition(c.policy().algorithm());
            specs[k] = spec(c.policy()).fields();
            inline &= d.inline();
            size += specs[k].length - 1 + d.checkArgumentCount();   // code and cost, the numbers (the spec holds two codes)
        }
        Cursor params = new Cursor(new byte[inline ? size : size + 1][], n);
        byte[] mode = inline ? EVALUATE : EVALUATE_ALL;        // then the application's time, if it is passed
        params.add(now.length == 0 ? mode : concat(mode, now));
        if (!inline) {
            params.add(requestId);
        }
        for (int k = 0; k < n; k++) {
            int i = group == null ? k : group.get(k);
            Check c = checks.get(i);
            params.params[k] = keys != null ? keys[i] : this.keys.bytes(c.rule(), c.key());
            putCheck(params, c, specs[k]);
        }
        return params.params;
    }

    /**
     * The arguments of one script call for several requests: how many of them are keys, and all of them; {@code fast}
     * whether it is the fast batch (mode {@code B}), whose reply is decoded otherwise.
     */
    record Batch(int keys, byte[][] params, boolean fast) {}

    /**
     * @param keys the checks' keys, already encoded; null to encode them here
     * @return a request's arguments for a batch
     */
    BatchRequest request(List<Check> checks, byte[][] keys, byte[] now, byte[] requestId) {
        byte[][] encoded = new byte[checks.size()][];
        for (int i = 0; i < encoded.length; i++) {
            encoded[i] = keys != null ? keys[i] : this.keys.bytes(checks.get(i).rule(), checks.get(i).key());
        }
        byte[][] fast = encoded.length == 0 ? null : new byte[encoded.length][];      // none: no shape to send
        for (int i = 0; fast != null && i < encoded.length; i++) {
            Check c = checks.get(i);
            if (c.cost() == 1 && !c.shadow() && Algorithms.definition(c.policy().algorithm()).fast()) {
                fast[i] = spec(c.policy()).fast();
            } else {
                fast = null;
            }
        }
        return new BatchRequest(this, checks, encoded, now, requestId, fast);
    }

    /**
     * The script's batch mode: the fast batch ({@link FastBatch}) where every check has a fast mode; else every
     * request's keys, in order, then the mode {@code b} (with the first request's time when the application's is
     * passed, so that the script reads no {@code TIME}), then per request the number of its checks followed by the
     * arguments of its call alone (its mode, with its own time when the application's is passed, and what follows it).
     */
    static Batch batch(List<BatchRequest> requests) {
        boolean fast = true;
        for (BatchRequest r : requests) {
            fast &= r.fast() != null;
        }
        if (fast) {
            return FastBatch.encode(requests);
        }
        int keys = 0;
        int size = 1;
        for (BatchRequest r : requests) {
            keys += r.keys().length;
            size += 1 + r.args().length;
        }
        byte[][] params = new byte[keys + size][];
        int k = 0;
        int a = keys;
        byte[] first = requests.get(0).args()[0];      // its mode, with the application's time when it is passed
        params[a++] = first.length == 1 ? BATCH : concat(BATCH, Arrays.copyOfRange(first, 1, first.length));
        for (BatchRequest r : requests) {
            System.arraycopy(r.keys(), 0, params, k, r.keys().length);
            k += r.keys().length;
            params[a++] = number(r.keys().length);
            System.arraycopy(r.args(), 0, params, a, r.args().length);
            a += r.args().length;
        }
        return new Batch(keys, params, false);
    }

    /**
     * A request of one enforced check of cost 1 in its algorithm's fast mode, as the Redis function reads it: the key,
     * the code and the policy's numbers in one argument (each argument costs Redis about 1,500 instructions, a
     * thirtieth of such a call, and the function parses the argument once), then the application's time when it is
     * passed. The script reads them otherwise: {@link #forScript}.
     */
    private static byte[][] fast(Check c, byte[] key, byte[] now) {
        byte[] fast = spec(c.policy()).fast();
        return now.length == 0 ? new byte[][] {key, fast} : new byte[][] {key, fast, now};
    }

    /**
     * The arguments of a call as the script ({@code EVALSHA}) reads them, from those of the function: the same but in
     * a fast mode, whose one argument ({@code g1000:1000}, then the time when it is passed) the script gets as its
     * other modes' arguments, the code with the time ({@code g} or {@code g1700000000000000}), then each number: a
     * script keeps nothing from call to call, and would spend more parsing one argument than it saves.
     */
    static byte[][] forScript(int keys, byte[][] params) {
        byte[] fast = params.length > keys ? params[keys] : EMPTY;
        if (fast.length == 0 || fast[0] < 0 || !FAST[fast[0]]) {
            return params;
        }
        int numbers = fast.length == 1 ? 0 : 1;
        for (int i = 1; i < fast.length; i++) {
            numbers += fast[i] == ':' ? 1 : 0;
        }
        byte[][] out = Arrays.copyOf(params, keys + 1 + numbers);
        byte[] code = {fast[0]};
        out[keys] = params.length > keys + 1 ? concat(code, params[keys + 1]) : code;
        for (int from = 1, k = keys + 1; k < out.length; k++) {
            int to = from;
            while (to < fast.length && fast[to] != ':') {
                to++;
            }
            out[k] = Arrays.copyOfRange(fast, from, to);
            from = to + 1;
        }
        return out;
    }

    /** Writes a check's arguments: its code (and cost), its policy's numbers, then the check's own arguments. */
    private static void putCheck(Cursor params, Check c, byte[][] spec) {
        byte[] code = spec[c.shadow() ? 1 : 0];
        params.add(c.cost() == 1 ? code : concat(code, Long.toString(c.cost()).getBytes(StandardCharsets.US_ASCII)));
        for (int f = 2; f < spec.length; f++) {
            params.add(spec[f]);
        }
        Algorithms.definition(c.policy().algorithm()).checkArguments(c.key(), c.leaseId(), c.policy(), params);
    }

    /** The script's arguments, written in order from a position. */
    private static final class Cursor implements Definition.Arguments {
        final byte[][] params;
        int at;

        Cursor(byte[][] params, int at) {
            this.params = params;
            this.at = at;
        }

        void add(byte[] bytes) {
            params[at++] = bytes;
        }

        @Override
        public void add(long number) {
            params[at++] = number(number);
        }

        @Override
        public void add(String text) {
            params[at++] = text == null ? EMPTY : text.getBytes(StandardCharsets.UTF_8);
        }
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

    /**
     * A policy encoded once: {@code fields}, its code (enforced, shadow) and the numbers its algorithm reads, each an
     * argument; {@code fast}, its fast mode's one argument (the code, then each number after a {@code :}), or null
     * where its algorithm has none.
     */
    private record Spec(byte[][] fields, byte[] fast) {}

    private static Spec spec(Policy p) {
        Spec spec = SPECS.getIfPresent(p);
        return spec != null ? spec : SPECS.get(p, ScriptCodec::encode);
    }

    private static Spec encode(Policy p) {
        Definition d = Algorithms.definition(p.algorithm());
        List<byte[]> spec = new ArrayList<>();
        spec.add(new byte[] {(byte) d.code()});
        spec.add(new byte[] {(byte) Character.toUpperCase(d.code())});
        d.arguments(p, new Definition.Arguments() {
            @Override
            public void add(long number) {
                spec.add(Long.toString(number).getBytes(StandardCharsets.US_ASCII));
            }

            @Override
            public void add(String text) {
                spec.add(text == null ? EMPTY : text.getBytes(StandardCharsets.UTF_8));
            }
        });
        byte[][] fields = spec.toArray(new byte[0][]);
        if (!d.fast()) {
            return new Spec(fields, null);
        }
        StringBuilder fast = new StringBuilder().append(d.code());
        for (int f = 2; f < fields.length; f++) {
            fast.append(f == 2 ? "" : ":").append(new String(fields[f], StandardCharsets.US_ASCII));
        }
        return new Spec(fields, fast.toString().getBytes(StandardCharsets.US_ASCII));
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    static byte[] number(long n) {
        return n >= 0 && n < NUMBERS.length ? NUMBERS[(int) n] : Long.toString(n).getBytes(StandardCharsets.US_ASCII);
    }
}
