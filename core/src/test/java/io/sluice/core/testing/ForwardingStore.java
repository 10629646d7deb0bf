package io.sluice.core.testing;

import io.sluice.core.policy.Outcome;
import io.sluice.core.store.Check;
import io.sluice.core.store.Lease;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.store.Store;
import java.util.List;

/**
 * A store that forwards to a real {@link MemoryStore} without being one, so the engine takes its general path (as with
 * Redis). Tests override {@link #beforeEvaluate} to fail like an unreachable Redis, count calls, or act between two
 * calls of one request.
 */
public class ForwardingStore implements Store {

    protected final MemoryStore memory;

    public ForwardingStore(MemoryStore memory) {
        this.memory = memory;
    }

    /** Runs before each {@link #evaluate} call reaches the memory store; may throw a {@code StoreException}. */
    protected void beforeEvaluate(List<Check> checks) {}

    @Override
    public List<Outcome> evaluate(List<Check> checks, long nowMicros) {
        beforeEvaluate(checks);
        return memory.evaluate(checks, nowMicros);
    }

    @Override
    public void release(List<Lease> leases, long nowMicros) {
        memory.release(leases, nowMicros);
    }

    @Override
    public void reset(String rule, String key) {
        memory.reset(rule, key);
    }
}
