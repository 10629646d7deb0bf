package io.sluice.examples.docs.api;

import io.sluice.core.Engine;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import io.sluice.redis.RedisStore;

public class PartnerApi {

    private final Engine engine = Engine.builder()
            .store(RedisStore.builder().url("redis://localhost:6379").build()).build();

    /** @return whether a call to the partner may go now: at most 100 a second per account */
    public boolean mayCall(String account) {
        Outcome o = engine.tryAcquire("partner-api", account, Policy.parse("100/1s"), 1);
        if (!o.allowed()) {
            return false;                       // or wait o.retryAfterMicros()
        }
        return true;
    }

    /** @return the calls the account has left now, taking none */
    public long left(String account) {
        return engine.inspect("partner-api", account, null).remaining();
    }
}
