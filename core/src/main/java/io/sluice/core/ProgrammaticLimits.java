package io.sluice.core;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Policy;
import io.sluice.core.policy.Outcome;
import io.sluice.core.store.Check;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.store.Store;
import io.sluice.core.time.TimeSource;
import java.util.List;

/**
 * The programmatic API behind {@link Engine#tryAcquire(String, String, Policy, long)}, {@link Limiter} and
 * {@link KeyLimiter}: one check of a named limit, without a request or a rule. On the {@link MemoryStore} a rate
 * policy is decided without building a check or a list. Thread-safe.
 */
final class ProgrammaticLimits {

    private final Store store;
    private final MemoryStore memory;       // the store when it is the memory store, else null
    private final TimeSource time;

    ProgrammaticLimits(Store store, TimeSource time) {
        this.store = store;
        this.memory = store instanceof MemoryStore m ? m : null;
        this.time = time;
    }

    /** See {@link Engine#tryAcquire(String, String, Policy, long)}. */
    Outcome tryAcquire(String name, String key, Policy policy, long cost) {
        if (memory != null && policy != null && policy.algorithm() != Algorithm.CONCURRENCY) {
            return memory.tryAcquire(name, key, policy, cost, time);     // no Check, no list; it checks the arguments
        }
        Check.requireValid(name, key, policy, cost);
        Check check = new Check(name, key, policy, cost, false,
                policy.algorithm() == Algorithm.CONCURRENCY ? Engine.newLeaseId() : null);
        return store.evaluate(List.of(check), time.nowMicros(), time).get(0);
    }

    /** The handle of {@link Limiter#key(String)}: on the memory store it keeps the key's cell. */
    KeyLimiter keyLimiter(Limiter limiter, String key) {
        MemoryStore.KeyHandle handle = memory != null ? memory.handle(limiter.name(), key, limiter.policy(), time) : null;
        return new KeyLimiter(limiter, key, handle);
    }
}
