package io.sluice.redis;

import io.sluice.core.policy.Outcome;
import io.sluice.core.store.Check;
import io.sluice.core.store.Lease;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The calls of a request whose keys may live in several Cluster slots: each key encoded once, the checks grouped by
 * slot, one script call per group (several groups in one pipeline), the outcomes put back in the request's order.
 * Each group is all-or-nothing; across groups a denial does not undo another's consumption.
 */
final class SlotCalls {

    private final RedisScript script;
    private final RedisKeys keys;
    private final ScriptCodec codec;

    SlotCalls(RedisScript script, RedisKeys keys, ScriptCodec codec) {
        this.script = script;
        this.keys = keys;
        this.codec = codec;
    }

    /** @return the outcomes of {@code checks}, in their order */
    List<Outcome> evaluate(List<Check> checks, byte[] now, byte[] requestId) {
        int n = checks.size();
        byte[][] encoded = new byte[n][];     // each key encoded (and hashed) once, for its slot and the call
        for (int i = 0; i < n; i++) {
            encoded[i] = keys.bytes(checks.get(i).rule(), checks.get(i).key());
        }
        List<List<Integer>> groups = RedisKeys.bySlot(encoded);
        List<byte[][]> params = new ArrayList<>(groups.size());
        for (List<Integer> group : groups) {
            params.add(codec.params(checks, group, encoded, now, requestId));
        }
        List<Object> replies = groups.size() == 1 ? List.of(script.run(groups.get(0).size(), params.get(0)))
                : script.pipelined(groups, params);
        return ScriptReplies.outcomes(replies, groups, checks);
    }

    /** Releases {@code leases}: one call for all, or with {@code bySlot} one per slot. */
    void release(List<Lease> leases, long nowMicros, boolean bySlot) {
        byte[][] encoded = new byte[leases.size()][];
        for (int i = 0; i < encoded.length; i++) {
            encoded[i] = keys.bytes(leases.get(i).rule(), leases.get(i).key());
        }
        List<List<Integer>> groups = bySlot ? RedisKeys.bySlot(encoded) : Collections.singletonList(null);
        for (List<Integer> group : groups) {     // null: one call for all
            script.run(group == null ? encoded.length : group.size(), codec.release(leases, group, encoded, nowMicros));
        }
    }
}
