package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import io.sluice.core.policy.PolicyParser;
import io.sluice.core.store.Check;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.store.StoreException;
import io.sluice.core.testing.ForwardingStore;
import io.sluice.core.testing.ManualTimeSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Leased permits over a memory store that poses as a shared one, on a manual clock, blocks taken on the caller's
 * thread: which checks blocks answer, that the fleet never passes the configured envelope, and all-or-nothing.
 */
class LeasedPermitsTest {

    private final ManualTimeSource clock = new ManualTimeSource();
    private final MemoryStore memory = MemoryStore.builder().timeSource(clock).build();
    private final AtomicInteger storeCalls = new AtomicInteger();
    private final AtomicBoolean down = new AtomicBoolean();

    /** One node of a fleet: its own blocks, the one store of all. */
    private LeasedPermits node() {
        ForwardingStore shared = new ForwardingStore(memory) {
            @Override
            protected void beforeEvaluate(List<Check> checks) {
                if (down.get()) {
                    throw new StoreException("down", null);
                }
                storeCalls.incrementAndGet();
            }

            @Override
            public boolean shared() {
                return true;
            }
        };
        return new LeasedPermits(shared, clock, clock::nowMicros, Runnable::run);
    }

    private boolean ask(LeasedPermits node, Policy policy) {
        return node.evaluate(List.of(Check.of("r", "k", policy, 1)), clock.nowMicros(), clock).get(0).allowed();
    }

    @Test
    void aBusyKeyBelowItsLimitIsAnsweredFromBlocks() {
        LeasedPermits node = node();
        Policy p = Policy.parse("1000/1s leased 100ms");
        int admitted = 0;
        for (int i = 0; i < 1000; i++) {             // 500 a second for two seconds
            admitted += ask(node, p) ? 1 : 0;
            clock.advanceMicros(2_000);
        }
        LeaseCounts counts = node.counts();
        assertThat(admitted).isEqualTo(1000);
        assertThat(counts.leasedDecisions() + counts.storeDecisions()).isEqualTo(1000);
        assertThat(storeCalls.get()).as("store calls for 1000 decisions").isLessThan(1000 / 10);
        assertThat(counts.takes()).isPositive();
        assertThat(counts.permitsTaken()).isGreaterThanOrEqualTo(counts.leasedDecisions());
    }

    @Test
    void aFleetOverItsLimitNeverPassesTheConfiguredEnvelope() {
        List<LeasedPermits> fleet = List.of(node(), node(), node());
        Policy p = Policy.parse("1000/1s leased 100ms");     // burst 1000, one permit a ms; 100 held in reserve
        List<Long> times = new ArrayList<>();
        for (int i = 0; i < 30_000; i++) {               // 10,000 a second for three seconds, across three nodes
            if (ask(fleet.get(i % 3), p)) {
                times.add(clock.nowMicros());
            }
            clock.advanceMicros(100);
        }
        assertEnvelope(times, 1000, 1_000);
        long lapsed = fleet.stream().mapToLong(n -> n.counts().permitsLapsed()).sum();
        long taken = fleet.stream().mapToLong(n -> n.counts().permitsTaken()).sum();
        // the most the store can give in 3 s: the burst and a permit a ms (less the reserve the lease keeps)
        assertThat((long) times.size() + lapsed).isLessThanOrEqualTo(900 + 3_000 + 1);
        assertThat(times.size()).as("under-use within blocks of the three nodes").isGreaterThan(900 + 3_000 - 300);
        assertThat(taken).as("blocks were taken while the burst lasted").isPositive();
    }

    /**
     * The case the reserve is for: a node holds a block while the bucket refills to full, then it spends the block as
     * another node takes the whole bucket at the same instant. Without the reserve the two pass more than the burst.
     */
    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"GCRA", "TOKEN_BUCKET"})
    void aBlockHeldWhileTheBucketRefillsNeverAddsToAFullBurst(Algorithm algorithm) {
        LeasedPermits a = node();
        LeasedPermits b = node();
        Policy p = Policy.parse("1000/1s leased 100ms").withAlgorithm(algorithm);
        List<Long> times = new ArrayList<>();
        for (int i = 0; i < 500; i++) {                  // a: 500 a second for a second, in blocks
            if (ask(a, p)) {
                times.add(clock.nowMicros());
            }
            clock.advanceMicros(2_000);
        }
        assertThat(a.heldFor("r", "k")).as("a block in hand").isPositive();
        for (int i = 0; i < 1_500; i++) {                // then both at once, as much as they can
            for (LeasedPermits node : List.of(a, b)) {
                if (ask(node, p)) {
                    times.add(clock.nowMicros());
                }
            }
        }
        assertEnvelope(times, 1000, 1_000);
    }

    /** In every window [a, a + w] of admission times: at most burst + w / interval. */
    private static void assertEnvelope(List<Long> times, long burst, long intervalMicros) {
        for (int first = 0; first < times.size(); first++) {
            for (int last = first; last < times.size(); last++) {
                long span = times.get(last) - times.get(first);
                assertThat((long) (last - first + 1)).as("admitted in %d µs from #%d", span, first)
                        .isLessThanOrEqualTo(burst + span / intervalMicros);
                if (span > 400_000) {
                    break;          // past the reserve's reach a window only adds its own rate
                }
            }
        }
    }

    @Test
    void aFixedWindowsBlockEndsWithItsWindow() {
        LeasedPermits node = node();
        Policy p = PolicyParser.parse("limit", "400/1s leased 500ms", Algorithm.FIXED_WINDOW);
        long[] perWindow = new long[3];
        for (int i = 0; i < 3_000; i++) {              // 1000 a second for three seconds
            long window = (clock.nowMicros() - ManualTimeSource.START_MICROS) / 1_000_000;
            perWindow[(int) window] += ask(node, p) ? 1 : 0;
            clock.advanceMicros(1_000);
        }
        assertThat(perWindow).containsExactly(400, 400, 400);
        assertThat(node.counts().leasedDecisions()).isPositive();
    }

    @Test
    void aRequestAnotherRuleDeniesGivesItsLeasedPermitBack() {
        LeasedPermits node = node();
        Policy leased = Policy.parse("1000/1s leased 100ms");
        for (int i = 0; i < 200; i++) {
            ask(node, leased);
            clock.advanceMicros(1_000);
        }
        long before = node.counts().leasedDecisions();
        Check tight = Check.of("tight", "k", Policy.parse("1/1h"), 1);
        Check mine = Check.of("r", "k", leased, 1);
        assertThat(node.evaluate(List.of(mine, tight), clock.nowMicros(), clock).get(1).allowed()).isTrue();
        long heldBefore = held(node);
        List<Outcome> denied = node.evaluate(List.of(mine, tight), clock.nowMicros(), clock);
        assertThat(denied.get(1).allowed()).isFalse();
        assertThat(denied.get(0).allowed()).as("answered from a block").isTrue();
        assertThat(held(node)).as("the permit went back").isEqualTo(heldBefore);
        assertThat(node.counts().leasedDecisions()).isEqualTo(before + 1);
    }

    @Test
    void aStoreFailureGivesThePermitsBackAndReachesTheCaller() {
        LeasedPermits node = node();
        Policy leased = Policy.parse("1000/1s leased 100ms");
        for (int i = 0; i < 200; i++) {
            ask(node, leased);
            clock.advanceMicros(1_000);
        }
        long heldBefore = held(node);
        down.set(true);
        Check other = Check.of("other", "k", Policy.parse("10/1s"), 1);
        assertThatThrownBy(() -> node.evaluate(List.of(Check.of("r", "k", leased, 1), other), clock.nowMicros(), clock))
                .isInstanceOf(StoreException.class);
        assertThat(held(node)).isEqualTo(heldBefore);
        assertThat(ask(node, leased)).as("a block still answers while the store is down").isTrue();
    }

    @Test
    void unspentPermitsLapseAtTheLeasesEndAndAResetDropsThem() {
        LeasedPermits node = node();
        Policy leased = Policy.parse("1000/1s leased 100ms");
        for (int i = 0; i < 200; i++) {
            ask(node, leased);
            clock.advanceMicros(1_000);
        }
        long held = held(node);
        assertThat(held).isPositive();
        clock.advanceMicros(100_000);
        ask(node, leased);
        assertThat(node.counts().permitsLapsed()).isEqualTo(held);
        for (int i = 0; i < 200; i++) {
            ask(node, leased);
            clock.advanceMicros(1_000);
        }
        long again = held(node);
        long lapsed = node.counts().permitsLapsed();
        node.reset("r", "k");
        assertThat(node.counts().permitsLapsed()).isEqualTo(lapsed + again);
        assertThat(held(node)).isZero();
    }

    @Test
    void aKeyNearItsLimitIsDecidedByTheStoreAlone() {
        LeasedPermits node = node();
        Policy p = Policy.parse("100/1s leased 100ms");        // 90 at once
        for (int i = 0; i < 1_000; i++) {                      // 1000 a second: ten times the limit
            ask(node, p);
            clock.advanceMicros(1_000);
        }
        LeaseCounts burst = node.counts();
        for (int i = 0; i < 2_000; i++) {
            ask(node, p);
            clock.advanceMicros(1_000);
        }
        LeaseCounts c = node.counts();
        assertThat(c.leasedDecisions()).as("blocks only while the burst lasted").isEqualTo(burst.leasedDecisions());
        assertThat(c.storeDecisions() - burst.storeDecisions()).isEqualTo(2_000);
    }

    @Test
    void keysSeenOnceCostOneStoreCallEachAndNoBlock() {
        LeasedPermits node = node();
        Policy p = Policy.parse("1000/1s leased 100ms");
        for (int i = 0; i < 1_000; i++) {
            assertThat(node.evaluate(List.of(Check.of("r", "client-" + i, p, 1)), clock.nowMicros(), clock).get(0)
                    .allowed()).isTrue();
            clock.advanceMicros(10);
        }
        assertThat(storeCalls.get()).isEqualTo(1_000);
        assertThat(node.counts().takes()).isZero();
    }

    /**
     * Keys that come twice a lease time each: a block would lapse mostly unspent, so none is taken (before, the second
     * request of a key took a block of three).
     */
    @Test
    void coldKeysGoToTheStoreCallByCallWithNoBlockAndNoPool() {
        LeasedPermits node = node();
        Policy p = Policy.parse("1000/1s leased 100ms");
        int decisions = 0;
        for (int round = 0; round < 10; round++) {         // each of 500 keys every 50 ms
            for (int i = 0; i < 500; i++) {
                assertThat(node.evaluate(List.of(Check.of("r", "client-" + i, p, 1)), clock.nowMicros(), clock)
                        .get(0).allowed()).isTrue();
                decisions++;
                clock.advanceMicros(100);
            }
        }
        assertThat(node.counts().takes()).as("takes").isZero();
        assertThat(storeCalls.get()).as("store calls").isEqualTo(decisions);
        assertThat(node.poolCount()).as("keys with a pool").isZero();
    }

    @Test
    void aKeyThatTurnsHotStartsLeasing() {
        LeasedPermits node = node();
        Policy p = Policy.parse("1000/1s leased 100ms");
        for (int i = 0; i < 20; i++) {                     // 20 a second: cold
            ask(node, p);
            clock.advanceMicros(50_000);
        }
        assertThat(storeCalls.get()).isEqualTo(20);
        assertThat(node.counts().takes()).isZero();
        int before = storeCalls.get();
        for (int i = 0; i < 1_000; i++) {                  // then 500 a second: hot
            assertThat(ask(node, p)).isTrue();
            clock.advanceMicros(2_000);
        }
        assertThat(node.counts().takes()).isPositive();
        assertThat(storeCalls.get() - before).as("store calls for 1000 hot decisions").isLessThan(1000 / 10);
    }

    /** Many hot keys: the pools stay within their bound, and every key is still decided. */
    @Test
    void hotKeysBeyondTheBoundKeepThePoolsBounded() {
        LeasedPermits node = node();
        Policy p = Policy.parse("1000/1s leased 100ms");
        for (int i = 0; i < LeasePools.MAX_POOLS + 2_000; i++) {
            for (int j = 0; j < 2 * KeyRates.HOT; j++) {
                assertThat(node.evaluate(List.of(Check.of("r", "hot-" + i, p, 1)), clock.nowMicros(), clock).get(0)
                        .allowed()).isTrue();
            }
            clock.advanceMicros(100);
            assertThat(node.poolCount()).isLessThanOrEqualTo(LeasePools.MAX_POOLS);
        }
    }

    /** One key's pool held locked: another key still decides, from its blocks and by the store, and takes blocks. */
    @Test
    void aKeyWhosePoolIsLockedHoldsNoOtherKeyUp() throws Exception {
        LeasedPermits node = node();
        Policy p = Policy.parse("1000/1s leased 100ms");
        for (int i = 0; i < 100; i++) {
            for (String key : List.of("a", "b")) {
                node.evaluate(List.of(Check.of("r", key, p, 1)), clock.nowMicros(), clock);
            }
            clock.advanceMicros(1_000);
        }
        LeasePool a = node.poolOf("r", "a");
        assertThat(a).isNotNull();
        CountDownLatch locked = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            synchronized (a) {
                locked.countDown();
                await(release);
            }
        });
        holder.start();
        try {
            assertThat(locked.await(10, TimeUnit.SECONDS)).isTrue();
            long takes = node.counts().takes();
            ExecutorService other = Executors.newSingleThreadExecutor();
            try {
                Future<Integer> b = other.submit(() -> {
                    int admitted = 0;
                    for (int i = 0; i < 300; i++) {
                        admitted += node.evaluate(List.of(Check.of("r", "b", p, 1)), clock.nowMicros(), clock)
                                .get(0).allowed() ? 1 : 0;
                    }
                    return admitted;
                });
                assertThat(b.get(10, TimeUnit.SECONDS)).as("b decided while a's pool was locked").isEqualTo(300);
            } finally {
                other.shutdownNow();
            }
            assertThat(node.counts().takes()).as("b took blocks meanwhile").isGreaterThan(takes);
        } finally {
            release.countDown();
            holder.join(10_000);
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private long held(LeasedPermits node) {
        return node.heldFor("r", "k");
    }
}
