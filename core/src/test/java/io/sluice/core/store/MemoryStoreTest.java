package io.sluice.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policies;
import io.sluice.core.policy.Policy;
import io.sluice.core.policy.PolicyParser;
import io.sluice.core.testing.ManualTimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class MemoryStoreTest {

    private final ManualTimeSource time = new ManualTimeSource();
    private final MemoryStore store = MemoryStore.builder().timeSource(time).build();

    private Outcome one(String rule, String key, Policy policy) {
        return store.evaluate(List.of(Check.of(rule, key, policy, 1)), time.nowMicros()).get(0);
    }

    @Test
    void deniedRequestConsumesFromNoRule() {
        Policy roomy = PolicyParser.parse("limit", "10/1m", Algorithm.FIXED_WINDOW);
        Policy tight = PolicyParser.parse("limit", "1/1m", Algorithm.FIXED_WINDOW);
        one("tight", "k", tight);                        // uses up the tight rule

        List<Outcome> both = store.evaluate(List.of(Check.of("roomy", "k", roomy, 1), Check.of("tight", "k", tight, 1)),
                time.nowMicros());

        assertThat(both.get(0).allowed()).isTrue();      // the roomy rule alone would allow...
        assertThat(both.get(1).allowed()).isFalse();     // ...but the tight one denies the request
        assertThat(one("roomy", "k", roomy).remaining()).as("roomy consumed only by this request").isEqualTo(9);
    }

    @Test
    void shadowDenialDoesNotStopTheEnforcedRulesFromConsuming() {
        Policy roomy = PolicyParser.parse("limit", "10/1m", Algorithm.FIXED_WINDOW);
        Policy tight = PolicyParser.parse("limit", "1/1m", Algorithm.FIXED_WINDOW);
        one("tight", "k", tight);

        List<Outcome> both = store.evaluate(List.of(Check.of("roomy", "k", roomy, 1),
                new Check("tight", "k", tight, 1, true, null)), time.nowMicros());

        assertThat(both.get(1).allowed()).isFalse();
        assertThat(one("roomy", "k", roomy).remaining()).isEqualTo(8);
    }

    @Test
    void sixteenThreadsOnOneKeyNeverAdmitMoreThanTheLimit() throws Exception {
        for (Algorithm algorithm : List.of(Algorithm.FIXED_WINDOW, Algorithm.SLIDING_LOG, Algorithm.TOKEN_BUCKET,
                Algorithm.GCRA, Algorithm.LEAKY_BUCKET)) {
            Policy policy = PolicyParser.parse("limit", "100/1h", algorithm);
            int total = admittedTogether(16, thread -> {
                int n = 0;
                for (int i = 0; i < 500; i++) {
                    n += one(algorithm.id(), "hot", policy).allowed() ? 1 : 0;
                }
                return n;
            });
            assertThat(total).as(algorithm.id()).isEqualTo(100);
        }
    }

    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void requestsLockingSharedKeysInOppositeOrdersNeitherDeadlockNorOverAdmit() throws Exception {
        // two keys shared by every request, named in opposite orders by half of the threads, plus single checks on one
        // of them: the cells' locks are taken in one total order, so no two requests wait on each other forever, and
        // the shared key still admits exactly its limit
        Policy shared = PolicyParser.parse("limit", "300/1h", Algorithm.GCRA);
        Policy roomy = PolicyParser.parse("limit", "1000000/1h", Algorithm.FIXED_WINDOW);
        int total = admittedTogether(8, thread -> {
            int n = 0;
            for (int i = 0; i < 400; i++) {
                Check a = Check.of("shared", "hot", shared, 1);
                Check b = Check.of("roomy", "warm", roomy, 1);
                List<Check> checks = switch ((thread + i) % 3) {
                    case 0 -> List.of(a, b);
                    case 1 -> List.of(b, a);
                    default -> List.of(a);
                };
                n += store.evaluate(checks, time.nowMicros()).get(checks.indexOf(a)).allowed() ? 1 : 0;
            }
            return n;
        });
        assertThat(total).isEqualTo(300);
    }

    /**
     * Runs {@code work} on {@code threads} threads released together.
     *
     * @param work given the thread's index, returns how many requests it saw admitted
     * @return the admitted requests of all threads
     */
    private static int admittedTogether(int threads, java.util.function.IntFunction<Integer> work) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Integer>> admitted = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                admitted.add(pool.submit(() -> {
                    start.await();
                    return work.apply(thread);
                }));
            }
            start.countDown();
            int total = 0;
            for (Future<Integer> f : admitted) {
                total += f.get(30, TimeUnit.SECONDS);
            }
            return total;
        } finally {
            pool.shutdown();
        }
    }

    @Test
    void aMillionDistinctKeysKeepMemoryBounded() {
        MemoryStore bounded = MemoryStore.builder().timeSource(time).maximumKeys(10_000).build();
        Policy policy = Policy.parse("5/1h");
        for (int i = 0; i < 1_000_000; i++) {
            bounded.evaluate(List.of(Check.of("per-ip", "10." + (i >>> 16) + "." + ((i >>> 8) & 255) + "." + (i & 255),
                    policy, 1)), time.nowMicros());
        }
        assertThat(bounded.trackedKeys()).isLessThanOrEqualTo(10_000);
    }

    @Test
    void idleStateExpiresWhenItNoLongerMatters() {
        Policy policy = PolicyParser.parse("limit", "5/1m", Algorithm.FIXED_WINDOW);
        for (int i = 0; i < 100; i++) {
            one("r", "k" + i, policy);
        }
        assertThat(store.trackedKeys()).isEqualTo(100);
        time.advance(Duration.ofMinutes(1).plusMillis(1));
        assertThat(store.trackedKeys()).isZero();
    }

    @Test
    void leasesAreTakenReleasedAndExpire() {
        Policy two = Policy.parse("2 concurrent lease 10s");
        Outcome a = store.evaluate(List.of(new Check("c", "k", two, 1, false, "a")), time.nowMicros()).get(0);
        Outcome b = store.evaluate(List.of(new Check("c", "k", two, 1, false, "b")), time.nowMicros()).get(0);
        Outcome c = store.evaluate(List.of(new Check("c", "k", two, 1, false, "c")), time.nowMicros()).get(0);
        assertThat(List.of(a.allowed(), b.allowed(), c.allowed())).containsExactly(true, true, false);

        store.release(List.of(new Lease("c", "k", two, "a")), time.nowMicros());
        assertThat(store.evaluate(List.of(new Check("c", "k", two, 1, false, "d")), time.nowMicros()).get(0).allowed())
                .as("released lease frees a slot").isTrue();

        time.advance(Duration.ofSeconds(10));            // b and d were never released: they expire
        assertThat(store.evaluate(List.of(new Check("c", "k", two, 1, false, "e")), time.nowMicros()).get(0).remaining())
                .isEqualTo(1);
    }

    @Test
    void resetForgetsTheKey() {
        Policy one = PolicyParser.parse("limit", "1/1h", Algorithm.FIXED_WINDOW);
        assertThat(one("r", "k", one).allowed()).isTrue();
        assertThat(one("r", "k", one).allowed()).isFalse();
        store.reset("r", "k");
        assertThat(one("r", "k", one).allowed()).isTrue();
    }

    @Test
    void oneCheckAloneAnswersAsItDoesAmongOtherChecks() {
        // the single-check fast path (primitive state in place) against the multi-check path (reference steps)
        java.util.Random random = new java.util.Random(42);
        Policy roomy = Policy.parse("1000000/1s");
        for (Algorithm algorithm : List.of(Algorithm.GCRA, Algorithm.TOKEN_BUCKET, Algorithm.FIXED_WINDOW,
                Algorithm.SLIDING_WINDOW)) {
            for (String notation : List.of("5/1s", "3/10s", "1/1m", "7/250ms")) {
                Policy policy = Policies.burstWhereTaken(Policies.staggeredWhereTaken(
                        Policy.parse(notation).withAlgorithm(algorithm), random.nextBoolean()),
                        notation.equals("3/10s") ? 7 : 0);
                MemoryStore alone = MemoryStore.builder().timeSource(time).build();
                MemoryStore among = MemoryStore.builder().timeSource(time).build();
                for (int i = 0; i < 400; i++) {
                    time.advanceMicros(random.nextInt(4) == 0 ? random.nextInt(3 * (int) Math.min(policy.periodMicros(),
                            20_000_000L)) : random.nextInt(20_000));
                    long cost = random.nextInt(10) == 0 ? random.nextInt(9) : 1;
                    String key = "k" + random.nextInt(3);
                    Outcome a = alone.evaluate(List.of(Check.of("r", key, policy, cost)), time.nowMicros()).get(0);
                    Outcome b = among.evaluate(List.of(Check.of("r", key, policy, cost),
                            new Check("other", key, roomy, 1, true, null)), time.nowMicros()).get(0);
                    assertThat(a).as("%s %s step %d", algorithm, notation, i).isEqualTo(b);
                }
                assertThat(alone.trackedKeys()).isLessThanOrEqualTo(3);
            }
        }
    }

    @Test
    void callersOnAnotherClockKeepTheirKeysTrackedUntilTheStoreClockExpiresThem() {
        // the store expires by its own clock; the caller passes times from another one (here: 1970)
        Policy policy = Policy.parse("1/1h");
        assertThat(store.evaluate(List.of(Check.of("t", "acme", policy, 1)), 5_000_000).get(0).allowed()).isTrue();
        assertThat(store.evaluate(List.of(Check.of("t", "acme", policy, 1)), 5_000_001).get(0).allowed()).isFalse();
        assertThat(store.evaluate(List.of(Check.of("t", "globex", policy, 1)), 5_000_002).get(0).allowed()).isTrue();
        assertThat(store.trackedKeys()).isEqualTo(2);
        time.advance(Duration.ofMinutes(59));
        assertThat(store.trackedKeys()).isEqualTo(2);
        time.advance(Duration.ofMinutes(2));
        assertThat(store.trackedKeys()).isZero();
    }

    @Test
    void expiredStateAnswersAsAFreshKeyBeforeItIsSwept() {
        Policy policy = PolicyParser.parse("limit", "2/1m", Algorithm.TOKEN_BUCKET);
        one("r", "k", policy);
        one("r", "k", policy);
        assertThat(one("r", "k", policy).allowed()).isFalse();
        time.advance(Duration.ofMinutes(1));
        Outcome again = one("r", "k", policy);
        assertThat(again.allowed()).isTrue();
        assertThat(again.remaining()).isEqualTo(1);
    }

    @Test
    void anExpiredKeyKeepsItsCellForAGraceMinuteSoAKeyThatComesBackDoesNotChurnTheCache() {
        Policy policy = Policy.parse("10/1s");                  // GCRA: one request's state matters for 100 ms
        one("r", "returning", policy);
        time.advance(Duration.ofMillis(500));                   // expired, within the grace
        for (int i = 0; i < 20; i++) {
            one("r", "new-" + i, policy);                       // each new key sweeps a few expired cells
        }
        assertThat(store.cellsInMemory()).as("the expired cell is kept within the grace").isEqualTo(21);
        assertThat(one("r", "returning", policy).remaining()).as("and still answers as a fresh key").isEqualTo(9);

        time.advance(Duration.ofMillis(MemoryStore.SWEEP_GRACE_MICROS / 1_000 + 200));
        for (int i = 0; i < 30; i++) {
            one("r", "later-" + i, policy);
        }
        assertThat(store.cellsInMemory()).as("past the grace the sweep drops them").isEqualTo(30);
        assertThat(store.trackedKeys()).isEqualTo(30);
    }

    @Test
    void aClockThatStepsBackByAMinuteFindsTheExpiredStateItLeftNeitherSweptNorCountedAsTracked() {
        Policy policy = Policy.parse("1/1s");                   // GCRA: the request at 0 s matters until 1 s
        long start = time.nowMicros();
        one("r", "a", policy);
        time.set(start + 61_000_000 - 1);                       // the state expired a minute ago, less 1 µs
        for (int i = 0; i < 10; i++) {
            one("r", "new-" + i, policy);                       // each new key sweeps a few expired cells
        }
        assertThat(store.trackedKeys()).as("the expired key is not tracked, the new ones are").isEqualTo(10);
        time.set(start + 500_000);                              // back by a minute
        assertThat(one("r", "a", policy)).as("a clock going back mints no permit")
                .isEqualTo(Outcome.deny(1, 0, 500_000, 500_000));
    }

    @Test
    void aLeaseReleasedAfterItExpiredStaysReleasedWhenTheClockStepsBack() {
        Policy policy = Policy.parse("1 concurrent lease 1s");
        long start = time.nowMicros();
        assertThat(store.evaluate(List.of(new Check("c", "k", policy, 1, false, "a")), start).get(0).allowed()).isTrue();
        time.set(start + 2_000_000);                            // expired at 1 s; its request completes at 2 s
        store.release(List.of(new Lease("c", "k", policy, "a")), time.nowMicros());
        time.set(start + 500_000);
        assertThat(store.evaluate(List.of(new Check("c", "k", policy, 1, false, "b")), time.nowMicros()).get(0))
                .as("the released lease is gone, as in Redis").isEqualTo(Outcome.allow(1, 0, 0));
        assertThat(store.trackedKeys()).isEqualTo(1);
    }

    @Test
    void peeksAndHopelessCostsAtUnknownKeysNeitherInsertNorEvict() {
        MemoryStore bounded = MemoryStore.builder().timeSource(time).maximumKeys(2).build();
        Policy gcra = Policy.parse("5/1m");
        Policy log = Policy.parse("5/1m").withAlgorithm(Algorithm.SLIDING_LOG);
        bounded.evaluate(List.of(Check.of("r", "kept", gcra, 3)), time.nowMicros());
        bounded.evaluate(List.of(Check.of("l", "kept", log, 3)), time.nowMicros());
        for (int i = 0; i < 200; i++) {
            long now = time.nowMicros();
            assertThat(bounded.evaluate(List.of(Check.of("r", "u" + i, gcra, 0)), now).get(0).remaining()).isEqualTo(5);
            assertThat(bounded.evaluate(List.of(Check.of("r", "u" + i, gcra, 6)), now).get(0).allowed()).isFalse();
            assertThat(bounded.tryAcquire("r", "u" + i, gcra, 0, time).remaining()).isEqualTo(5);
            assertThat(bounded.evaluate(List.of(Check.of("l", "u" + i, log, 0), Check.of("r", "v" + i, gcra, 0)), now))
                    .extracting(Outcome::remaining).containsExactly(5L, 5L);
            assertThat(bounded.evaluate(List.of(new Check("c", "u" + i, Policy.concurrent(2), 0, false, "lease-" + i)),
                    now).get(0).remaining()).as("a lease of cost 0 peeks too").isEqualTo(2);
        }
        assertThat(bounded.cellsInMemory()).as("no cell was inserted for an answer that writes nothing").isEqualTo(2);
        assertThat(bounded.tryAcquire("r", "kept", gcra, 0, time).remaining()).as("nothing was evicted").isEqualTo(2);
        assertThat(bounded.evaluate(List.of(Check.of("l", "kept", log, 0)), time.nowMicros()).get(0).remaining())
                .isEqualTo(2);
    }

    @Test
    void peeksAtUnknownKeysTrackNothing() {
        for (int i = 0; i < 50; i++) {
            store.evaluate(List.of(Check.of("r", "k" + i, Policy.parse("5/1m"), 0)), time.nowMicros());
        }
        assertThat(store.trackedKeys()).isZero();
    }

    @Test
    void evictedKeysStartFreshAndTheBoundHoldsOnTheFastPath() {
        MemoryStore small = MemoryStore.builder().timeSource(time).maximumKeys(100).build();
        Policy policy = Policy.parse("1/1h");
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 10_000; i++) {
                small.tryAcquire("r", "k" + i, policy, 1, time);
            }
        }
        assertThat(small.trackedKeys()).isLessThanOrEqualTo(100);
    }

    @Test
    void tryAcquireAnswersAsEvaluate() {
        ManualTimeSource other = new ManualTimeSource().set(1_000_000);
        MemoryStore a = MemoryStore.builder().timeSource(time).build();
        MemoryStore b = MemoryStore.builder().timeSource(time).build();
        for (Algorithm algorithm : Algorithm.values()) {
            if (algorithm.concurrent()) {
                continue;
            }
            Policy policy = PolicyParser.parse("limit", "3/1s", algorithm);
            for (int i = 0; i < 20; i++) {
                time.advanceMicros(100_000);
                other.advanceMicros(100_000);
                assertThat(a.tryAcquire(algorithm.id(), "k", policy, 1, other)).as("%s #%d", algorithm, i)
                        .isEqualTo(b.evaluate(List.of(Check.of(algorithm.id(), "k", policy, 1)), other.nowMicros()).get(0));
            }
        }
    }

    @Test
    @Timeout(value = 10, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aRequestWithMoreKeysThanTheBoundStillAnswers() {
        for (int max = 1; max <= 2; max++) {
            MemoryStore small = MemoryStore.builder().timeSource(time).maximumKeys(max).build();
            Policy policy = Policy.parse("5/1m");
            List<Check> checks = new ArrayList<>();
            for (int i = 0; i <= max; i++) {
                checks.add(Check.of("r" + i, "k", policy, 1));
            }
            for (int round = 0; round < 20; round++) {
                List<Outcome> outcomes = small.evaluate(checks, time.nowMicros());
                assertThat(outcomes).as("max %d round %d", max, round).hasSize(max + 1);
                // a key evicted during the request answers as a fresh one: never below 5 - 1 - round
                assertThat(outcomes).allSatisfy(o -> assertThat(o.limit()).isEqualTo(5));
            }
            assertThat(small.trackedKeys()).isLessThanOrEqualTo(max);

            List<Check> impossible = new ArrayList<>(checks);
            impossible.set(max, Check.of("r" + max, "k", policy, 6));
            List<Outcome> denied = small.evaluate(impossible, time.nowMicros());
            assertThat(denied.get(max).never()).as("a cost above the capacity is still denied").isTrue();
        }
    }

    @Test
    void tryAcquireRefusesAConcurrencyPolicyAndBadArguments() {
        assertThatThrownBy(() -> store.tryAcquire("r", "k", Policy.concurrent(2), 1, time))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("2 concurrent");
        assertThatThrownBy(() -> store.tryAcquire(null, "k", Policy.parse("1/1s"), 1, time))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.tryAcquire("r", null, Policy.parse("1/1s"), 1, time))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.tryAcquire("r", "k", null, 1, time)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.tryAcquire("r", "k", Policy.parse("1/1s"), -1, time))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(store.trackedKeys()).as("no lease was taken").isZero();
    }

    @Test
    @Timeout(value = 10, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void theSingleCheckPathAnswersUnderABoundOfOneKey() {
        MemoryStore small = MemoryStore.builder().timeSource(time).maximumKeys(1).build();
        Policy policy = Policy.parse("1/1h");
        for (int i = 0; i < 1_000; i++) {
            assertThat(small.tryAcquire("r", "k" + (i % 3), policy, 1, time).limit()).isEqualTo(1);
        }
        assertThat(small.trackedKeys()).isLessThanOrEqualTo(1);
    }
}
