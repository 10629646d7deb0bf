package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Policy;
import io.sluice.core.request.RequestView;
import io.sluice.core.policy.PolicyParser;
import io.sluice.core.store.Check;
import io.sluice.core.store.Lease;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.store.StoreException;
import io.sluice.core.testing.ForwardingStore;
import io.sluice.core.testing.LogCapture;
import io.sluice.core.testing.ManualTimeSource;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Losing the store (Redis) for a moment must not lose requests: no client is refused for what the outage did. */
class StoreLossTest {

    private final ManualTimeSource time = new ManualTimeSource();
    private final MemoryStore memory = MemoryStore.builder().timeSource(time).build();
    private final AtomicBoolean down = new AtomicBoolean();
    private final AtomicInteger releaseCalls = new AtomicInteger();

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
            releaseCalls.incrementAndGet();
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

    /**
     * The local fallback's share of a bucket near Policy's span bound: limit 3 on 2 nodes is a share of 1, whose
     * interval is three times as long, and half the burst then spans 1.5 times the bound. Building that policy threw
     * a ConfigException from engine.check on every request while the store was down.
     */
    @Test
    void theLocalShareOfALongBucketIsALimitNotAnError() {
        Policy yearly = Policy.parse("3/366d burst 427");                 // 427 x 122 days: just under 2^52 µs
        Engine engine = Engine.builder().timeSource(time).store(switchable).nodeCount(2)
                .rule(Rule.builder("yearly").policy(yearly).key(RequestView::remoteAddress)
                        .onStoreFailure(Rule.FailureMode.LOCAL).build())
                .build();
        down.set(true);

        Decision first = engine.check(from("10.0.0.1"));

        assertThat(first.allowed()).isTrue();
        RuleOutcome local = first.outcomes().get(0);
        assertThat(local.source()).isEqualTo(RuleOutcome.Source.LOCAL_FALLBACK);
        assertThat(local.policy().capacity() * local.policy().intervalMicros()).isLessThanOrEqualTo(Policy.MAX_SPAN_MICROS);
        int admitted = 1;
        while (engine.check(from("10.0.0.1")).allowed()) {
            admitted++;
        }
        assertThat(admitted).as("the local bucket: this node's half of the burst (213), kept within the bound: "
                + "2^52 µs / 366 days = 142.4").isEqualTo(142);
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

    private Engine oneInFlightPerClient() {
        return Engine.builder().timeSource(time).store(switchable)
                .rule(Rule.builder("export").policy(Policy.concurrent(1)).key(RequestView::remoteAddress).build())
                .build();
    }

    @Test
    void whileTheCircuitIsOpenAReleaseDoesNotWaitForTheStoreAndIsDoneOnceItIsBack() {
        Engine engine = oneInFlightPerClient();
        Decision inFlight = engine.check(from("10.0.0.4"));
        down.set(true);
        for (int i = 0; i < 3; i++) {
            engine.check(from("10.0.0.5"));          // three failed calls open the circuit
        }
        assertThat(engine.storeCircuit()).isEqualTo(io.sluice.core.store.CircuitBreaker.State.OPEN);
        int before = releaseCalls.get();

        engine.release(inFlight);

        assertThat(releaseCalls.get()).as("no call to a store known to be down (each would wait for its timeout)")
                .isEqualTo(before);
        down.set(false);
        time.advance(java.time.Duration.ofSeconds(1));          // past the circuit's cool-down
        assertThat(engine.check(from("10.0.0.4")).allowed()).as("the kept lease was released before this call")
                .isTrue();
    }

    @Test
    void failedReleasesAreLoggedAtMostOnceAMinuteWithTheCountOfTheOthers() {
        try (LogCapture log = new LogCapture(Engine.class.getName())) {
            Engine engine = Engine.builder().timeSource(time).store(switchable).circuitBreaker(1_000, java.time.Duration.ofSeconds(1))
                    .rule(Rule.builder("export").policy(Policy.concurrent(5)).key(RequestView::remoteAddress).build())
                    .build();
            List<Decision> inFlight = new java.util.ArrayList<>();
            for (int i = 0; i < 5; i++) {
                inFlight.add(engine.check(from("10.0.0.6")));
            }
            down.set(true);
            for (int i = 0; i < 4; i++) {
                engine.release(inFlight.get(i));
            }
            assertThat(failedReleases(log)).hasSize(1);
            time.advance(java.time.Duration.ofSeconds(61));
            engine.release(inFlight.get(4));

            assertThat(failedReleases(log)).hasSize(2);
            assertThat(failedReleases(log).get(1)).contains("3 more such failures not logged");
        }
    }

    private static List<String> failedReleases(LogCapture log) {
        return log.warnings().stream().filter(m -> m.startsWith("could not release")).toList();
    }

    @Test
    void theLocalFallbacksBoundIsCheckedLikeTheMemoryStores() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Engine.builder().localMaximumKeys(0))
                .isInstanceOf(io.sluice.core.config.ConfigException.class).hasMessageContaining("maximum-keys")
                .hasMessageContaining("0");
    }
}
