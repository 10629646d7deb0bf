package io.sluice.redis;

import io.sluice.core.policy.Outcome;
import io.sluice.core.store.Check;
import java.util.List;

/**
 * For the benchmarks only: one batch call of a {@link RedisStore}, the call its coalescer makes for the requests that
 * waited (the script's batch mode), made here on demand so that a harness can count what Redis spends on batches of a
 * given size ({@code io.sluice.benchmarks.ScriptInstructions}). In the store's package, on the class path: no part of
 * Sluice's API.
 */
public final class StoreBatches {

    private StoreBatches() {}

    /** @return each request's outcomes, decided in one batch call at Redis's time (or at 0 with the application's) */
    public static List<List<Outcome>> together(RedisStore store, List<List<Check>> requests) {
        return store.evaluateTogether(requests, new long[requests.size()]);
    }
}
