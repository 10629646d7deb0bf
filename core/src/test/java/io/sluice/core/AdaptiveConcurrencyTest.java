package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.config.ConfigException;
import io.sluice.core.key.KeyResolvers;
import io.sluice.core.policy.Policy;
import io.sluice.core.request.RequestView;
import io.sluice.core.request.SimpleRequestView;
import io.sluice.core.store.Check;
import io.sluice.core.store.Lease;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.store.Store;
import io.sluice.core.testing.ForwardingStore;
import io.sluice.core.testing.ManualTimeSource;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import org.junit.jupiter.api.Test;

/**
 * Adaptive concurrency through the engine, against a simulated backend on a manual clock: a server that serves
 * {@value #CAPACITY} requests at once in its base latency and queues the rest, so that a request admitted with
 * {@code n} in flight takes {@code base * max(1, n / CAPACITY)}.
 */
class AdaptiveConcurrencyTest {

    static final int CAPACITY = 50;
    static final long TICK = 100;      // µs

    private final ManualTimeSource time = new ManualTimeSource();
    private final Engine engine = Engine.builder().timeSource(time)
            .rule(Rule.builder("server").policy("20 concurrent adaptive max 400").key(KeyResolvers.global()).build())
            .build();
    private final RequestView plain = RequestView.builder("GET", "/").build();
    private final RequestView critical = RequestView.builder("GET", "/")
            .attribute(AdaptiveLimits.CRITICAL_ATTRIBUTE, Boolean.TRUE).build();

    /** The simulated backend. */
    private final class Backend {
        long baseMicros = 10_000;
        int status = 200;
        final PriorityQueue<long[]> due = new PriorityQueue<>((a, b) -> Long.compare(a[0], b[0]));
        final List<Decision> decisions = new ArrayList<>();
        int inFlight;
        long admitted;
        long denied;
        long criticalAdmitted;
        long criticalDenied;

        /** Offers {@code perTick} plain requests every tick, and a critical one every {@code criticalEvery} ticks. */
        void run(long micros, int perTick, int criticalEvery) {
            for (long t = 0; t < micros; t += TICK) {
                time.advanceMicros(TICK);
                while (!due.isEmpty() && due.peek()[0] <= time.nowMicros()) {
                    int i = (int) due.poll()[1];
                    inFlight--;
                    engine.release(decisions.get(i), status);
                    decisions.set(i, null);
                }
                for (int r = 0; r < perTick; r++) {
                    offer(plain, false);
                }
                if (criticalEvery > 0 && (t / TICK) % criticalEvery == 0) {
                    offer(critical, true);
                }
            }
        }

        private void offer(RequestView request, boolean isCritical) {
            Decision d = engine.check(request);
            if (!d.allowed()) {
                denied += isCritical ? 0 : 1;
                criticalDenied += isCritical ? 1 : 0;
                return;
            }
            admitted += isCritical ? 0 : 1;
            criticalAdmitted += isCritical ? 1 : 0;
            inFlight++;
            long latency = baseMicros * Math.max(CAPACITY, inFlight) / CAPACITY;
            decisions.add(d);
            due.add(new long[] {time.nowMicros() + latency, decisions.size() - 1});
        }

        /** Runs {@code micros} and returns the least limit seen, sampled every 10 ms. */
        long leastOver(long micros, int perTick) {
            long least = Long.MAX_VALUE;
            for (long t = 0; t < micros; t += 10_000) {
                run(10_000, perTick, 0);
                least = Math.min(least, limit());
            }
            return least;
        }
    }

    private long limit() {
        return engine.adaptiveLimit("server", "global");
    }

    @Test
    void convergesNearCapacityFallsWhenLatencyDoublesAndRecovers() {
        Backend backend = new Backend();
        backend.run(3_000_000, 2, 0);       // 20 requests a ms offered, 5 a ms served
        long settled = limit();
        // plain requests only: they may use the limit less its 10% reserve, and that share settles near capacity
        assertThat(settled * 9 / 10).as("near the backend's capacity, limit %d", settled)
                .isBetween((long) CAPACITY, CAPACITY * 13L / 10);
        assertThat(backend.denied).as("the excess is shed").isGreaterThan(backend.admitted);

        backend.baseMicros = 20_000;        // the backend slows down
        long least = backend.leastOver(1_000_000, 2);
        assertThat(least).as("falls when latency doubles, from %d", settled).isLessThan(settled * 6 / 10);

        backend.baseMicros = 10_000;
        backend.run(3_000_000, 2, 0);
        assertThat(limit() * 9 / 10).as("recovers when it falls back, %d", limit())
                .isBetween((long) CAPACITY, CAPACITY * 13L / 10);
    }

    @Test
    void failuresShrinkTheLimit() {
        Backend backend = new Backend();
        backend.run(2_000_000, 2, 0);
        long settled = limit();
        backend.status = 503;
        backend.run(300_000, 2, 0);
        assertThat(limit()).isLessThan(settled / 2);
        backend.status = 200;
        backend.run(3_000_000, 2, 0);
        assertThat(limit()).isGreaterThanOrEqualTo(CAPACITY);
    }

    @Test
    void criticalRequestsKeepSucceedingWhileOthersAreShed() {
        Backend backend = new Backend();
        backend.run(3_000_000, 2, 40);      // a critical request every 4 ms among 20 plain ones a ms
        assertThat(backend.criticalDenied).isZero();
        assertThat(backend.criticalAdmitted).isEqualTo(750);
        assertThat(backend.denied).as("plain ones shed").isGreaterThan(backend.admitted);
        // the others stop at the limit less its reserve (10%), the critical ones at the limit
        long l = limit();
        Decision d = engine.check(plain);
        assertThat(d.binding().outcome().limit()).isEqualTo(l * 9 / 10);
        Decision c = engine.check(critical);
        assertThat(c.binding().outcome().limit()).isEqualTo(l);
        assertThat(c.binding().policy().toString()).isEqualTo(l + " concurrent");
    }

    @Test
    void everyLeaseIsReleasedSoTheLimitIsWhollyFreeAfterwards() {
        Backend backend = new Backend();
        backend.run(500_000, 2, 10);
        backend.run(200_000, 0, 0);          // everything completes
        assertThat(backend.inFlight).isZero();
        Decision peek = engine.check(critical);
        assertThat(peek.binding().outcome().remaining()).isEqualTo(limit() - 1);
    }

    @Test
    void theLimitIsThisNodesOnASharedStore() {
        List<Check> seen = new ArrayList<>();
        Store shared = new ForwardingStore(MemoryStore.builder().timeSource(time).build()) {
            @Override
            public boolean shared() {
                return true;
            }

            @Override
            public List<io.sluice.core.policy.Outcome> evaluate(List<Check> checks, long nowMicros) {
                seen.addAll(checks);
                return super.evaluate(checks, nowMicros);
            }

        };
        try (Engine node = Engine.builder().timeSource(time).store(shared)
                .rule(Rule.builder("server").policy("5 concurrent adaptive").key(KeyResolvers.global()).build())
                .build()) {
            Decision d = node.check(plain);
            assertThat(seen).singleElement().satisfies(c -> {
                assertThat(c.key()).startsWith("global@node-");
                assertThat(c.policy()).isEqualTo(Policy.parse("4 concurrent"));     // 5 less its reserve, floored
            });
            Lease lease = d.leases().get(0);
            assertThat(lease.key()).isEqualTo(seen.get(0).key());
            node.release(d, 200);
            assertThat(node.adaptiveLimit("server", "global")).isEqualTo(5);
        }
    }

    @Test
    void programmaticCallsRefuseIt() {
        Policy adaptive = Policy.parse("20 concurrent adaptive");
        assertThatThrownBy(() -> engine.tryAcquire("api", "k", adaptive, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("use a rule");
        assertThatThrownBy(() -> engine.limiter("api", adaptive)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Rule.builder("r").policy(adaptive).key(KeyResolvers.global())
                .countStatuses(java.util.Set.of(500)).build()).isInstanceOf(ConfigException.class);
    }
}
