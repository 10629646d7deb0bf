package io.sluice.redis;

import io.sluice.core.policy.Outcome;
import io.sluice.core.store.Check;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The script's fast batch (mode {@code B}, see {@code sluice.lua}): requests whose checks are each enforced, of cost 1
 * and of an algorithm with a fast mode, one rule or several, in as few arguments as they fit. The keys, one set per
 * run of requests on the same keys, policies and time; then the mode ({@code B}, with the first request's time when
 * the application's is passed) and tokens: {@code @} and a time where the time changes; where the policies change, a
 * fast mode's argument ({@code g1000:1000}) for requests of one check, or {@code =M} and M such arguments for
 * requests of M checks; {@code N} for the next N requests, each on keys of its own; {@code *N} for N requests on the
 * next keys. Redis spends about 1,500 instructions per argument: a batch of requests on distinct keys under the same
 * policies costs their keys and three arguments (two plus one per rule for several rules) in all, a hot key's batch
 * the same arguments and its keys once.
 */
final class FastBatch {

    private static final byte[] MODE = {'B'};

    private FastBatch() {}

    /** @param requests requests whose checks each have a fast mode ({@link BatchRequest#fast()}) */
    static ScriptCodec.Batch encode(List<BatchRequest> requests) {
        int n = requests.size();
        List<byte[]> keys = new ArrayList<>(n);
        List<byte[]> args = new ArrayList<>(8);
        byte[] now = requests.get(0).now();
        args.add(now.length == 0 ? MODE : ScriptCodec.concat(MODE, now));
        byte[][] policies = null;
        int singles = 0;
        for (int i = 0; i < n; ) {
            BatchRequest r = requests.get(i);
            int j = i + 1;
            while (j < n && same(requests.get(j), r)) {
                j++;
            }
            boolean timeChanges = !Arrays.equals(r.now(), now);
            boolean policyChanges = !Arrays.deepEquals(r.fast(), policies);
            if (singles > 0 && (j - i > 1 || timeChanges || policyChanges)) {
                args.add(ScriptCodec.number(singles));
                singles = 0;
            }
            if (timeChanges) {
                args.add(ScriptCodec.concat(new byte[] {'@'}, r.now()));
                now = r.now();
            }
            if (policyChanges) {
                policies = r.fast();
                if (policies.length > 1) {
                    args.add(("=" + policies.length).getBytes(StandardCharsets.US_ASCII));
                }
                args.addAll(Arrays.asList(policies));
            }
            keys.addAll(Arrays.asList(r.keys()));
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

    private static boolean same(BatchRequest r, BatchRequest first) {
        return Arrays.deepEquals(r.keys(), first.keys()) && Arrays.deepEquals(r.fast(), first.fast())
                && Arrays.equals(r.now(), first.now());
    }

    /**
     * Each request's outcomes from the fast batch's reply, check after check: one integer {@code >= 0}, an
     * admitted-at-once outcome packed as a single call's; or {@code -1} and the 4 integers of an outcome.
     */
    static List<List<Outcome>> outcomes(List<?> reply, List<List<Check>> checks) {
        List<List<Outcome>> out = new ArrayList<>(checks.size());
        int at = 0;
        for (List<Check> request : checks) {
            Outcome[] outcomes = new Outcome[request.size()];
            for (int i = 0; i < outcomes.length; i++) {
                long first = (Long) reply.get(at);
                if (first >= 0) {
                    outcomes[i] = ScriptReplies.admitted(first, request.get(i).policy());
                    at++;
                } else {
                    outcomes[i] = ScriptReplies.outcomeAt(reply, at + 1, request.get(i).policy());
                    at += 5;
                }
            }
            out.add(outcomes.length == 1 ? List.of(outcomes[0]) : Arrays.asList(outcomes));
        }
        return out;
    }
}
