package io.sluice.redis;

import io.sluice.core.policy.Outcome;
import io.sluice.core.store.Check;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The script's fast batch (mode {@code B}, see {@code sluice.lua}): requests of one enforced check of cost 1 each, of
 * algorithms with a fast mode, in as few arguments as they fit. The keys, one per run of requests on the same key,
 * policy and time; then the mode ({@code B}, with the first request's time when the application's is passed) and
 * tokens: {@code @} and a time where the time changes, a fast mode's argument ({@code g1000:1000}) where the policy
 * changes, {@code N} for the next N keys of one request each, {@code *N} for the next key's N requests. Redis spends
 * about 1,500 instructions per argument: a batch of requests on distinct keys under one policy costs a key per
 * request and three arguments in all, a hot key's batch three arguments and one key.
 */
final class FastBatch {

    private static final byte[] MODE = {'B'};

    private FastBatch() {}

    /** @param requests requests that each have a fast mode ({@link BatchRequest#fast()}) */
    static ScriptCodec.Batch encode(List<BatchRequest> requests) {
        int n = requests.size();
        List<byte[]> keys = new ArrayList<>(n);
        List<byte[]> args = new ArrayList<>(8);
        byte[] now = requests.get(0).now();
        args.add(now.length == 0 ? MODE : ScriptCodec.concat(MODE, now));
        byte[] policy = null;
        int singles = 0;
        for (int i = 0; i < n; ) {
            BatchRequest r = requests.get(i);
            byte[] key = r.keys()[0];
            byte[] fast = r.fast();
            byte[] time = r.now();
            int j = i + 1;
            while (j < n && same(requests.get(j), key, fast, time)) {
                j++;
            }
            boolean timeChanges = !Arrays.equals(time, now);
            boolean policyChanges = !Arrays.equals(fast, policy);
            if (singles > 0 && (j - i > 1 || timeChanges || policyChanges)) {
                args.add(ScriptCodec.number(singles));
                singles = 0;
            }
            if (timeChanges) {
                args.add(ScriptCodec.concat(new byte[] {'@'}, time));
                now = time;
            }
            if (policyChanges) {
                args.add(fast);
                policy = fast;
            }
            keys.add(key);
            if (j - i > 1) {
                args.add(("*" + (j - i)).getBytes(StandardCharsets.US_ASCII));
            } else {
                singles++;
            }
            i = j;
        }
        if (singles > 0) {
            args.add(ScriptCodec.number(singles));
        }
        byte[][] params = new byte[keys.size() + args.size()][];
        for (int k = 0; k < keys.size(); k++) {
            params[k] = keys.get(k);
        }
        for (int a = 0; a < args.size(); a++) {
            params[keys.size() + a] = args.get(a);
        }
        return new ScriptCodec.Batch(keys.size(), params, true);
    }

    private static boolean same(BatchRequest r, byte[] key, byte[] fast, byte[] time) {
        return Arrays.equals(r.keys()[0], key) && Arrays.equals(r.fast(), fast)
                && Arrays.equals(r.now(), time);
    }

    /**
     * Each request's outcome from the fast batch's reply: one integer {@code >= 0}, an admitted-at-once outcome packed
     * as a single call's; or {@code -1} and the 4 integers of an outcome.
     */
    static List<List<Outcome>> outcomes(List<?> reply, List<List<Check>> checks) {
        List<List<Outcome>> out = new ArrayList<>(checks.size());
        int at = 0;
        for (List<Check> request : checks) {
            long first = (Long) reply.get(at);
            if (first >= 0) {
                out.add(List.of(ScriptCodec.admitted(first, request.get(0).policy())));
                at++;
            } else {
                out.add(List.of(ScriptCodec.outcomeAt(reply, at + 1, request.get(0).policy())));
                at += 5;
            }
        }
        return out;
    }
}
