package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Policy;
import io.sluice.core.policy.Outcome;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.store.Store;
import io.sluice.core.testing.ForwardingStore;
import io.sluice.core.testing.ManualTimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LimiterTest {

    private final ManualTimeSource time = new ManualTimeSource();

    @Test
    void aLimiterIsTryAcquireUnderItsNameAndPolicy() {
        Engine engine = Engine.builder().timeSource(time).build();
        Limiter stripe = engine.limiter("stripe", Policy.parse("2/1s"));

        assertThat(stripe.tryAcquire("acct-42")).isTrue();
        assertThat(engine.tryAcquire("stripe", "acct-42", Policy.parse("2/1s"), 1).remaining())
                .as("the handle and the engine share the key's state").isZero();
        Outcome denied = stripe.tryAcquire("acct-42", 1);
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.retryAfterMicros()).isEqualTo(500_000);
        assertThat(stripe.tryAcquire("acct-7")).as("another key").isTrue();

        time.advance(Duration.ofMillis(500));
        assertThat(stripe.tryAcquire("acct-42")).isTrue();
        assertThat(stripe.name()).isEqualTo("stripe");
        assertThat(stripe.policy()).isEqualTo(Policy.parse("2/1s"));
    }

    @Test
    void aLimiterOverAnotherStoreOrAlgorithmTakesTheGeneralPath() {
        Engine engine = Engine.builder().timeSource(time).store(MemoryStore.builder().timeSource(time).build()).build();
        Limiter log = engine.limiter("log", Policy.parse("2/1s").withAlgorithm(Algorithm.SLIDING_LOG));
        assertThat(log.tryAcquire("k")).isTrue();
        assertThat(log.tryAcquire("k")).isTrue();
        assertThat(log.tryAcquire("k")).isFalse();
    }

    @Test
    void aLimiterOverAConcurrencyPolicyIsRefusedItCouldNeverReleaseItsLeases() {
        Engine engine = Engine.builder().timeSource(time).build();
        assertThatThrownBy(() -> engine.limiter("leases", Policy.concurrent(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leases").hasMessageContaining("1 concurrent").hasMessageContaining("release");
        assertThatThrownBy(() -> engine.limiter(null, Policy.parse("2/1s"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> engine.limiter("x", null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void tryAcquireValidatesItsArgumentsOnEveryPath() {
        Policy policy = Policy.parse("2/1s");
        for (Engine engine : List.of(Engine.builder().timeSource(time).build(),
                Engine.builder().timeSource(time).store(MemoryStore.builder().timeSource(new ManualTimeSource()).build())
                        .build())) {
            assertThatThrownBy(() -> engine.tryAcquire(null, "k", policy, 1)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> engine.tryAcquire("n", null, policy, 1)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> engine.tryAcquire("n", "k", null, 1)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> engine.tryAcquire("n", "k", policy, -1))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
            Limiter limiter = engine.limiter("n", policy);
            assertThatThrownBy(() -> limiter.tryAcquire(null)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> limiter.tryAcquire("k", -1)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void tryAcquireWithoutANameKeepsOneStatePerPolicy() {
        Engine engine = Engine.builder().timeSource(time).build();
        Policy a = Policy.parse("384/23s");
        Policy b = Policy.parse("425/62s burst 3");
        assertThat(a.toString().hashCode()).as("two notations with one String hash").isEqualTo(b.toString().hashCode());

        assertThat(engine.tryAcquire("k", a, 1).remaining()).isEqualTo(383);
        assertThat(engine.tryAcquire("k", b, 1).remaining()).as("another policy: a state of its own").isEqualTo(2);
        assertThat(engine.tryAcquire("k", Policy.parse("384/23s"), 0).remaining()).as("an equal policy shares it")
                .isEqualTo(383);
        assertThatThrownBy(() -> engine.tryAcquire("k", null, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("policy");
        assertThatThrownBy(() -> engine.tryAcquire(null, a, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> engine.tryAcquire("k", a, -1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
    }

    @Test
    void engineTryAcquireOverAConcurrencyPolicyStillTakesALeaseThatExpires() {
        Engine engine = Engine.builder().timeSource(time).store(MemoryStore.builder().timeSource(time).build()).build();
        Policy one = Policy.parse("1 concurrent lease 10s");
        assertThat(engine.tryAcquire("leases", "k", one, 1).allowed()).isTrue();
        assertThat(engine.tryAcquire("leases", "k", one, 1).allowed()).isFalse();
        time.advance(Duration.ofSeconds(10));
        assertThat(engine.tryAcquire("leases", "k", one, 1).allowed()).as("the lease expired").isTrue();
    }

    @Test
    void aKeyHandleSharesTheKeysStateWithTheKeyedCalls() {
        MemoryStore store = MemoryStore.builder().timeSource(time).build();
        Engine engine = Engine.builder().timeSource(time).store(store).build();
        Limiter stripe = engine.limiter("stripe", Policy.parse("3/1s"));
        KeyLimiter acct = stripe.key("acct-42");

        assertThat(acct.tryAcquire()).isTrue();
        assertThat(stripe.tryAcquire("acct-42")).isTrue();
        assertThat(stripe.key("acct-42").tryAcquire(1).remaining()).as("a second handle, same state").isZero();
        Outcome denied = acct.tryAcquire(1);
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.retryAfterMicros()).isEqualTo(333_333);
        assertThat(acct.tryAcquire(0).allowed()).as("a peek").isTrue();
        assertThat(stripe.tryAcquire("acct-7")).as("other keys are not touched").isTrue();

        store.reset("stripe", "acct-42");
        assertThat(acct.tryAcquire(1).remaining()).as("after a reset the handle finds the fresh key").isEqualTo(2);
        assertThat(stripe.tryAcquire("acct-42", 0).remaining()).as("and the keyed call sees what it wrote").isEqualTo(2);

        time.advance(Duration.ofMinutes(2));
        store.trackedKeys();    // sweeps every key expired for more than a minute, the handle's too
        assertThat(acct.tryAcquire(1).remaining()).as("expired and swept: fresh again, and tracked").isEqualTo(2);
        assertThat(store.trackedKeys()).isEqualTo(1);
        assertThat(acct.key()).isEqualTo("acct-42");
        assertThat(acct.limiter()).isSameAs(stripe);
    }

    @Test
    void aKeyHandleWhoseKeyWasEvictedLooksItUpAgain() {
        MemoryStore store = MemoryStore.builder().timeSource(time).maximumKeys(1).build();
        Engine engine = Engine.builder().timeSource(time).store(store).build();
        Limiter limiter = engine.limiter("l", Policy.parse("2/1h"));
        KeyLimiter a = limiter.key("a");
        assertThat(a.tryAcquire()).isTrue();
        for (int i = 0; i < 50 && store.trackedKeys() > 0 && limiter.tryAcquire("a", 0).remaining() == 1; i++) {
            limiter.tryAcquire("other-" + i);   // a bound of one key: new keys evict "a" (W-TinyLFU may first refuse them)
        }
        assertThat(limiter.tryAcquire("a", 0).remaining()).as("evicted: the keyed call sees a fresh key").isEqualTo(2);
        assertThat(a.tryAcquire(1).remaining()).as("the handle does too, and writes where the keyed call reads")
                .isEqualTo(1);
        assertThat(limiter.tryAcquire("a", 0).remaining()).isEqualTo(1);
    }

    @Test
    void aKeyHandleOverAnotherAlgorithmOrStoreTakesTheGeneralPath() {
        MemoryStore memory = MemoryStore.builder().timeSource(time).build();
        Store wrapped = new ForwardingStore(memory);      // not a MemoryStore: the engine's general path, as with Redis
        for (Store store : List.of(memory, wrapped)) {
            Engine engine = Engine.builder().timeSource(time).store(store).build();
            for (Algorithm algorithm : List.of(Algorithm.SLIDING_LOG, Algorithm.GCRA)) {
                Limiter limiter = engine.limiter(store.getClass().getSimpleName() + "-" + algorithm.id(), Policy.parse("2/1s").withAlgorithm(algorithm));
                KeyLimiter k = limiter.key("k");
                assertThat(k.tryAcquire()).isTrue();
                assertThat(limiter.tryAcquire("k")).isTrue();
                assertThat(k.tryAcquire()).as(algorithm.id()).isFalse();
            }
        }
    }

    @Test
    void aKeyHandleValidatesItsArguments() {
        for (Engine engine : List.of(Engine.builder().timeSource(time).build(),
                Engine.builder().timeSource(time).store(MemoryStore.builder().timeSource(time).build()).build())) {
            Limiter limiter = engine.limiter("n", Policy.parse("2/1s"));
            assertThatThrownBy(() -> limiter.key(null)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> limiter.key("k").tryAcquire(-1))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
        }
        assertThatThrownBy(() -> MemoryStore.create().handle("n", "k", Policy.concurrent(1), time))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1 concurrent");
    }

    @Test
    void handlesAndKeyedCallsOnSixteenThreadsNeverAdmitMoreThanTheLimit() throws Exception {
        for (Algorithm algorithm : List.of(Algorithm.GCRA, Algorithm.TOKEN_BUCKET, Algorithm.FIXED_WINDOW,
                Algorithm.SLIDING_WINDOW)) {
            Engine engine = Engine.builder().timeSource(time).store(MemoryStore.builder().timeSource(time).build())
                    .build();
            Limiter limiter = engine.limiter("hot", Policy.parse("100/1h").withAlgorithm(algorithm));
            KeyLimiter shared = limiter.key("k");
            ExecutorService pool = Executors.newFixedThreadPool(16);
            List<Future<Integer>> admitted = new ArrayList<>();
            for (int t = 0; t < 16; t++) {
                int thread = t;
                admitted.add(pool.submit(() -> {
                    KeyLimiter own = limiter.key("k");
                    int n = 0;
                    for (int i = 0; i < 300; i++) {
                        boolean allowed = switch ((thread + i) % 3) {
                            case 0 -> shared.tryAcquire();
                            case 1 -> own.tryAcquire();
                            default -> limiter.tryAcquire("k");
                        };
                        n += allowed ? 1 : 0;
                    }
                    return n;
                }));
            }
            int total = 0;
            for (Future<Integer> f : admitted) {
                total += f.get(30, TimeUnit.SECONDS);
            }
            pool.shutdown();
            assertThat(total).as(algorithm.id()).isEqualTo(100);
        }
    }
}
