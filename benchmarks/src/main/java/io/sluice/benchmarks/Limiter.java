package io.sluice.benchmarks;

/** One contender's decision for one key: the only call the benchmarks time. */
interface Limiter {

    /** @return whether the request for {@code key} is allowed (the key is ignored by single-key contenders) */
    boolean tryAcquire(String key);
}
