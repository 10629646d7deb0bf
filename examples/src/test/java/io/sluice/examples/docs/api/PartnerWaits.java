package io.sluice.examples.docs.api;

import io.sluice.core.Engine;
import io.sluice.core.Limiter;
import io.sluice.core.policy.Policy;
import java.time.Duration;

public class PartnerWaits {

    private final Limiter partner;

    public PartnerWaits(Engine engine) {
        partner = engine.limiter("partner-api", Policy.parse("100/1s"));
    }

    public void call(String account) throws InterruptedException {
        Duration waited = partner.acquire(account);             // or acquire(account, cost); KeyLimiter: acquire()
        if (partner.tryAcquire(account, 1, Duration.ofMillis(200))) {
            // taken within 200 ms; false at once when the store's retry time is further away than that
        }
    }
}
