package io.sluice.redis;

import io.sluice.core.algorithm.Algorithms;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import io.sluice.core.store.Check;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The script's replies read back ({@link ScriptCodec} writes its arguments): per check, 4 integers (0 when denied
 * else 1 + delay, remaining, reset-after, retry-after), or one packed integer for a check admitted at once; the fast
 * batch's own form is {@link FastBatch}'s.
 */
final class ScriptReplies {

    private ScriptReplies() {}

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

    /** Each request's outcomes from the reply of a batch: 4 integers per check, request after request. */
    static List<List<Outcome>> outcomes(Object reply, ScriptCodec.Batch batch, List<List<Check>> checks) {
        List<?> all = (List<?>) reply;
        if (batch.fast()) {
            return FastBatch.outcomes(all, checks);
        }
        List<List<Outcome>> out = new ArrayList<>(checks.size());
        int at = 0;
        for (List<Check> request : checks) {
            Outcome[] outcomes = new Outcome[request.size()];
            for (int i = 0; i < outcomes.length; i++) {
                outcomes[i] = outcome(all, at++, request.get(i).policy());
            }
            out.add(Arrays.asList(outcomes));
        }
        return out;
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
        return outcomeAt(reply, 4 * k, p);
    }

    /** @return the outcome whose 4 integers start at {@code at} in {@code reply} */
    static Outcome outcomeAt(List<?> reply, int at, Policy p) {
        long allowed = ((Number) reply.get(at)).longValue();
        long retry = ((Number) reply.get(at + 3)).longValue();
        return new Outcome(allowed > 0, limit(p), ((Number) reply.get(at + 1)).longValue(),
                ((Number) reply.get(at + 2)).longValue(), retry < 0 ? Outcome.NEVER : retry, allowed > 0 ? allowed - 1 : 0);
    }

    /**
     * One check admitted at once, in the script's packed form: reset-after x (limit + 1) + remaining (packed only when
     * below 2^53, so exact in Lua's doubles).
     */
    static Outcome admitted(long packed, Policy p) {
        long limit = limit(p);
        return Outcome.allow(limit, packed % (limit + 1), packed / (limit + 1));
    }

    static long limit(Policy p) {
        return Algorithms.definition(p.algorithm()).limit(p);
    }
}
