package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.config.PolicyParser;
import io.sluice.core.store.Check;
import io.sluice.core.store.Lease;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.testing.ForwardingStore;
import io.sluice.core.testing.ManualTimeSource;
import io.sluice.core.store.StoreException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** Losing the store (Redis) for a moment must not lose requests: no client is refused for what the outage did. */
class StoreLossTest {

    private final ManualTimeSource time = new ManualTimeSource();
    private final MemoryStore memory = MemoryStore.builder().timeSource(time).build();
    private final AtomicBoolean down = new AtomicBoolean();

    /** A real MemoryStore behind a switch that makes every call fail like an unreachable Redis. */
    private final ForwardingStore switchable = new ForwardingStore(memory) {
        @Override
        protected void beforeEvaluate(List<Check> checks) {
            if (down.get()) {
                throw new StoreException("connection refused");
            }
        }

        @Override
        public void release(List<Lease> leases, long nowMicros) {
            if (down.get()) {
                throw new StoreException("connection refused");
            }
            super.release(leases, nowMicros);
        }
    };

    private static RequestView from(String ip) {
        return RequestView.builder("POST", "/sign-in").remoteAddress(ip).build();
    }

    @Test
    void aLeaseWhoseReleaseFailsWhileTheStoreIsDownIsReleasedOnceItIsBack() {
        Engine engine = Engine.builder().timeSource(time).store(switchable)
                .rule(Rule.builder("export").policy(Policy.concurrent(1)).key(RequestView::remoteAddress).build())
                .build();
        Decision first = engine.check(from("10.0.0.1"));
        assertThat(first.allowed()).isTrue();
        assertThat(first.leases()).hasSize(1);

        down.set(true);                       // Redis blips while the request is in flight
        engine.release(first);                // the request completes: the release fails
        down.set(false);                      // and Redis is back at once

        Decision next = engine.check(from("10.0.0.1"));
        assertThat(next.allowed()).as("nothing is in flight: the failed release must be retried, not left to the "
                + "lease timeout (a minute of 429s)").isTrue();
    }

    private Engine failedLoginsFallingBackLocally() {
        Rule failedLogins = Rule.builder("failed-logins").policy(PolicyParser.parse("limit", "2/1m", Algorithm.FIXED_WINDOW))
                .key(RequestView::remoteAddress).countStatuses(Set.of(401))
                .onStoreFailure(Rule.FailureMode.LOCAL).build();
        return Engine.builder().timeSource(time).store(switchable).rule(failedLogins).build();
    }

    @Test
    void whileTheStoreIsDownALocalCountedRuleDoesNotCountSuccessfulRequests() {
        Engine engine = failedLoginsFallingBackLocally();
        down.set(true);
        for (int i = 0; i < 5; i++) {
            RequestView login = from("10.0.0.2");
            Decision d = engine.check(login);
            assertThat(d.allowed()).as("successful sign-in %d: a rule counting 401s only must not refuse it", i + 1)
                    .isTrue();
            engine.charge(login, d, 200);
        }
    }

    @Test
    void whileTheStoreIsDownALocalCountedRuleCountsItsFailuresLocally() {
        Engine engine = failedLoginsFallingBackLocally();
        down.set(true);
        for (int i = 0; i < 2; i++) {
            RequestView attempt = from("10.0.0.3");
            Decision d = engine.check(attempt);
            assertThat(d.allowed()).isTrue();
            assertThat(d.binding().source()).isEqualTo(RuleOutcome.Source.LOCAL_FALLBACK);
            engine.charge(attempt, d, 401);
        }
        Decision third = engine.check(from("10.0.0.3"));
        assertThat(third.allowed()).as("two failures fill the local 2/1m").isFalse();
        assertThat(third.binding().source()).isEqualTo(RuleOutcome.Source.LOCAL_FALLBACK);

        down.set(false);
        assertThat(engine.inspect("failed-logins", "10.0.0.3", null).remaining())
                .as("the outage's local counts never reach the store with the local share's policy").isEqualTo(2);
    }
}
