package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import io.sluice.core.store.Check;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.store.StoreException;
import io.sluice.core.testing.ForwardingStore;
import io.sluice.core.testing.ManualTimeSource;
import io.sluice.core.time.Sleeper;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link Limiter#acquire}, {@link Limiter#tryAcquire(String, long, Duration)} and their {@link KeyLimiter} forms, on
 * a manual clock that is its own sleeper: every wait is a park until the test moves the clock, and the test waits for
 * each thread to reach its park ({@link ManualTimeSource#awaitParked}) before it acts, so every timeline runs in one
 * order, with no real sleep.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class BlockingAcquireTest {

    private static final long T = ManualTimeSource.START_MICROS;
    private static final Policy TWO_PER_SECOND = Policy.parse("2/1s");
    private static final Policy ONE_PER_SECOND = Policy.parse("1/1s");

    private final ManualTimeSource time = new ManualTimeSource();

    /** The three ways a call reaches the store: the limiter, its key handle, the general path (denial cache). */
    enum Path {
        LIMITER, KEY_HANDLE, GENERAL;

        Engine engine(ManualTimeSource time) {
            return this == GENERAL
                    ? Engine.builder().timeSource(time).store(new ForwardingStore(
                            MemoryStore.builder().timeSource(time).build())).build()
                    : Engine.builder().timeSource(time).build();
        }
    }

    /** One blocking call on a thread of its own. */
    private static final class Caller<T> {
        final Thread thread;
        final CompletableFuture<T> result = new CompletableFuture<>();

        Caller(String name, Callable<T> call) {
            thread = new Thread(() -> {
                try {
                    result.complete(call.call());
                } catch (Throwable e) {
                    result.completeExceptionally(e);
                }
            }, name);
            thread.setDaemon(true);
            thread.start();
        }

        T get() throws Exception {
            return result.get(10, TimeUnit.SECONDS);
        }

        Throwable failure() throws Exception {
            try {
                result.get(10, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                return e.getCause();
            }
            throw new AssertionError(thread.getName() + " did not fail");
        }
    }

    private interface Acquire {
        Duration acquire(Limiter limiter, String key) throws InterruptedException;
    }

    private static Acquire acquireBy(Path path) {
        return path == Path.KEY_HANDLE ? (limiter, key) -> limiter.key(key).acquire() : Limiter::acquire;
    }

    @ParameterizedTest
    @EnumSource(Path.class)
    void twoAcquiresPassAtOnceAndTheThirdWaitsExactlyHalfASecond(Path path) throws Exception {
        Limiter limiter = path.engine(time).limiter("partner", TWO_PER_SECOND);
        Acquire acquire = acquireBy(path);
        assertThat(acquire.acquire(limiter, "k")).isEqualTo(Duration.ZERO);
        assertThat(acquire.acquire(limiter, "k")).isEqualTo(Duration.ZERO);

        Caller<Duration> third = new Caller<>("third", () -> acquire.acquire(limiter, "k"));
        time.awaitParked(third.thread, T + 500_000);
        assertThat(third.result).as("no permit until the retry time").isNotDone();
        time.advance(Duration.ofMillis(499));
        assertThat(third.result).isNotDone();
        time.advance(Duration.ofMillis(1));

        assertThat(third.get()).isEqualTo(Duration.ofMillis(500));
        assertThat(limiter.tryAcquire("k", 0).remaining()).as("the third took its permit").isZero();
        assertThat(limiter.limits().lines().size()).as("nobody waits: no line left").isZero();
    }

    @ParameterizedTest
    @EnumSource(Path.class)
    void tryAcquireGivesUpAtOnceWhenTheRetryTimeIsPastItsTimeoutElseWaitsAndSucceeds(Path path) throws Exception {
        Limiter limiter = path.engine(time).limiter("partner", TWO_PER_SECOND);
        KeyLimiter handle = limiter.key("k");
        assertThat(limiter.tryAcquire("k", 1, Duration.ZERO)).as("a permit is there: a zero timeout takes it").isTrue();
        assertThat(handle.tryAcquire(Duration.ofMillis(10))).isTrue();

        assertThat(limiter.tryAcquire("k", 1, Duration.ofMillis(499))).as("the retry time is 500 ms away").isFalse();
        assertThat(handle.tryAcquire(1, Duration.ofMillis(499))).isFalse();
        assertThat(time.parks()).as("without waiting at all").isZero();
        assertThat(time.nowMicros()).isEqualTo(T);

        Caller<Boolean> enough = new Caller<>("enough", () -> path == Path.KEY_HANDLE
                ? handle.tryAcquire(Duration.ofMillis(500)) : limiter.tryAcquire("k", Duration.ofMillis(500)));
        time.awaitParked(enough.thread, T + 500_000);
        time.advance(Duration.ofMillis(500));
        assertThat(enough.get()).isTrue();
        assertThat(limiter.tryAcquire("k")).as("it took the permit").isFalse();
    }

    @Test
    void tryAcquireInLineGivesUpAsSoonAsItKnowsItCannotBeServedInTime() throws Exception {
        Limiter limiter = Engine.builder().timeSource(time).build().limiter("partner", ONE_PER_SECOND);
        assertThat(limiter.tryAcquire("k")).isTrue();
        Caller<Duration> first = new Caller<>("first", () -> limiter.acquire("k"));
        time.awaitParked(first.thread, T + 1_000_000);

        assertThat(limiter.tryAcquire("k", 1, Duration.ofMillis(999)))
                .as("the first asks again in a second: a newcomer cannot be served before").isFalse();
        Caller<Boolean> second = new Caller<>("second", () -> limiter.tryAcquire("k", 1, Duration.ofMillis(1_500)));
        time.awaitParked(second.thread, T + 1_500_000);     // its deadline: it waits its turn until then at most

        time.advance(Duration.ofSeconds(1));
        assertThat(first.get()).isEqualTo(Duration.ofSeconds(1));
        assertThat(second.get()).as("its turn came; the next permit is a second away, past its deadline").isFalse();
        assertThat(time.nowMicros()).as("it did not wait for its deadline").isEqualTo(T + 1_000_000);

        Caller<Boolean> third = new Caller<>("third", () -> limiter.tryAcquire("k", 1, Duration.ofMillis(1_500)));
        time.awaitParked(third.thread, T + 2_000_000);
        time.advance(Duration.ofSeconds(1));
        assertThat(third.get()).isTrue();
        assertThat(limiter.limits().lines().size()).isZero();
    }

    @Test
    void aWaiterInLineGivesUpAsSoonAsTheFirstLearnsItWillAskAgainPastItsDeadline() throws Exception {
        Limiter limiter = Engine.builder().timeSource(time).build().limiter("partner", ONE_PER_SECOND);
        assertThat(limiter.tryAcquire("k")).isTrue();
        Caller<Duration> first = new Caller<>("first", () -> limiter.acquire("k"));
        time.awaitParked(first.thread, T + 1_000_000);
        Caller<Boolean> second = new Caller<>("second", () -> limiter.tryAcquire("k", 1, Duration.ofMillis(1_500)));
        time.awaitParked(second.thread, T + 1_500_000);

        time.advanceQuietly(Duration.ofSeconds(1));
        assertThat(limiter.tryAcquire("k")).as("the non-blocking tryAcquire does not queue: it takes what is there")
                .isTrue();
        time.wake();                // the first asks, is denied, and will ask again at +2 s: past the second's deadline
        assertThat(second.get()).isFalse();
        assertThat(time.nowMicros()).as("before its deadline").isEqualTo(T + 1_000_000);
        time.awaitParked(first.thread, T + 2_000_000);
        time.advance(Duration.ofSeconds(1));
        assertThat(first.get()).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void waitersAreServedInArrivalOrderAndANewcomerQueuesBehindThemEvenWhenAPermitIsThere() throws Exception {
        Engine engine = Engine.builder().timeSource(time).build();
        Limiter limiter = engine.limiter("partner", ONE_PER_SECOND);
        KeyLimiter handle = engine.limiter("partner", ONE_PER_SECOND).key("k");     // another handle: the same line
        Queue<String> served = new ConcurrentLinkedQueue<>();
        assertThat(limiter.tryAcquire("k")).isTrue();

        Caller<Duration> a = new Caller<>("a", () -> served(served, "a", limiter.acquire("k")));
        time.awaitParked(a.thread, T + 1_000_000);                  // first: asked, waits for the retry time
        Caller<Duration> b = new Caller<>("b", () -> served(served, "b", handle.acquire()));
        time.awaitParked(b.thread, Sleeper.NO_DEADLINE);              // in line: waits its turn
        Caller<Boolean> c = new Caller<>("c", () -> {
            boolean taken = limiter.tryAcquire("k", 1, Duration.ofSeconds(10));
            served.add("c");
            return taken;
        });
        time.awaitParked(c.thread, T + 10_000_000);                 // in line until its deadline at most

        time.advanceQuietly(Duration.ofSeconds(1));                  // a permit is back; a has not woken yet
        assertThat(limiter.tryAcquire("k", 1, Duration.ZERO)).as("a newcomer with no time to wait").isFalse();
        Caller<Duration> d = new Caller<>("d", () -> served(served, "d", handle.acquire(1)));
        time.awaitParked(d.thread, Sleeper.NO_DEADLINE);
        assertThat(limiter.tryAcquire("k", 0).remaining()).as("the permit is still there for a").isEqualTo(1);

        time.wake();
        assertThat(a.get()).isEqualTo(Duration.ofSeconds(1));
        time.awaitParked(b.thread, T + 2_000_000);                  // b is first now, and asked
        time.advance(Duration.ofSeconds(1));
        assertThat(b.get()).isEqualTo(Duration.ofSeconds(2));
        time.awaitParked(c.thread, T + 3_000_000);
        time.advance(Duration.ofSeconds(1));
        assertThat(c.get()).isTrue();
        time.awaitParked(d.thread, T + 4_000_000);
        time.advance(Duration.ofSeconds(1));
        assertThat(d.get()).as("arrived at +1 s, served at +4 s").isEqualTo(Duration.ofSeconds(3));

        assertThat(served).containsExactly("a", "b", "c", "d");
        assertThat(limiter.limits().lines().size()).isZero();
    }

    private static Duration served(Queue<String> served, String who, Duration waited) {
        served.add(who);
        return waited;
    }

    @Test
    void anInterruptedWaiterGetsInterruptedExceptionAndTakesNothing() throws Exception {
        Limiter limiter = Engine.builder().timeSource(time).build().limiter("partner", ONE_PER_SECOND);
        assertThat(limiter.tryAcquire("k")).isTrue();
        Outcome before = limiter.tryAcquire("k", 0);

        Caller<Duration> first = new Caller<>("first", () -> limiter.acquire("k"));
        time.awaitParked(first.thread, T + 1_000_000);
        Caller<Boolean> inLine = new Caller<>("in-line", () -> limiter.key("k").tryAcquire(Duration.ofMinutes(1)));
        time.awaitParked(inLine.thread, T + 60_000_000);
        Caller<Duration> last = new Caller<>("last", () -> limiter.acquire("k"));
        time.awaitParked(last.thread, Sleeper.NO_DEADLINE);

        inLine.thread.interrupt();
        assertThat(inLine.failure()).isInstanceOf(InterruptedException.class);
        first.thread.interrupt();
        assertThat(first.failure()).isInstanceOf(InterruptedException.class);
        time.awaitParked(last.thread, T + 1_000_000);               // first now: it asked, and waits as the first did

        assertThat(limiter.tryAcquire("k", 0)).as("the key's state is as the two left it: untouched")
                .isEqualTo(before);
        time.advance(Duration.ofSeconds(1));
        assertThat(last.get()).as("the permit the interrupted ones did not take").isEqualTo(Duration.ofSeconds(1));
        time.advance(Duration.ofSeconds(1));
        assertThat(limiter.tryAcquire("k")).isTrue();
        assertThat(limiter.tryAcquire("k")).as("one per second: nobody else took one").isFalse();
        assertThat(limiter.limits().lines().size()).isZero();
    }

    @Test
    void aCallerInterruptedOnEntryThrowsAtOnceAndTakesNothing() throws Exception {
        Limiter limiter = Engine.builder().timeSource(time).build().limiter("partner", TWO_PER_SECOND);
        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> limiter.acquire("k")).isInstanceOf(InterruptedException.class);
        assertThat(Thread.currentThread().isInterrupted()).as("the status is cleared, as Semaphore.acquire does")
                .isFalse();
        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> limiter.key("k").tryAcquire(Duration.ofSeconds(1)))
                .isInstanceOf(InterruptedException.class);
        assertThat(limiter.tryAcquire("k", 0).remaining()).as("both permits are there").isEqualTo(2);
    }

    @Test
    void aCostThatCanNeverPassFailsAtOnce() throws Exception {
        Limiter limiter = Engine.builder().timeSource(time).build().limiter("partner", TWO_PER_SECOND);
        assertThatThrownBy(() -> limiter.acquire("k", 3)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("never").hasMessageContaining("partner").hasMessageContaining("2/1s");
        assertThatThrownBy(() -> limiter.key("k").acquire(3)).isInstanceOf(IllegalArgumentException.class);
        assertThat(limiter.tryAcquire("k", 3, Duration.ofHours(1))).isFalse();
        assertThat(limiter.key("k").tryAcquire(3, Duration.ofHours(1))).isFalse();
        assertThat(time.parks()).isZero();
        assertThat(limiter.tryAcquire("k", 0).remaining()).isEqualTo(2);
        assertThat(limiter.limits().lines().size()).isZero();
    }

    @Test
    void theArgumentsAreChecked() {
        Limiter limiter = Engine.builder().timeSource(time).build().limiter("partner", TWO_PER_SECOND);
        assertThatThrownBy(() -> limiter.acquire(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> limiter.acquire("k", -1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-1");
        assertThatThrownBy(() -> limiter.tryAcquire("k", 1, null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> limiter.key("k").acquire(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(limiter.limits().lines().size()).isZero();
    }

    @Test
    void aHugeTimeoutIsNoDeadlineAndANegativeOneIsNone() throws Exception {
        Limiter limiter = Engine.builder().timeSource(time).build().limiter("partner", ONE_PER_SECOND);
        assertThat(limiter.tryAcquire("k", 1, Duration.ofSeconds(-5))).isTrue();
        assertThat(limiter.tryAcquire("k", 1, Duration.ofSeconds(-5))).isFalse();
        Caller<Boolean> forever = new Caller<>("forever", () -> limiter.tryAcquire("k",
                Duration.ofSeconds(Long.MAX_VALUE)));
        time.awaitParked(forever.thread, T + 1_000_000);
        time.advance(Duration.ofSeconds(1));
        assertThat(forever.get()).isTrue();
    }

    @Test
    void inQueueModeTheCallIsHeldForTheDelayItsPermitTaken() throws Exception {
        // leaky bucket, 2/1s, max-wait 1s: the first passes, the second is queued 500 ms, the third is denied
        Limiter limiter = Engine.builder().timeSource(time).build().limiter("queue", Policy.parse("2/1s max-wait 1s"));
        assertThat(limiter.acquire("k")).isEqualTo(Duration.ZERO);
        Caller<Duration> queued = new Caller<>("queued", () -> limiter.acquire("k"));
        time.awaitParked(queued.thread, T + 500_000);
        assertThat(limiter.tryAcquire("k")).as("its place in the queue is taken").isFalse();
        time.advance(Duration.ofMillis(500));
        assertThat(queued.get()).isEqualTo(Duration.ofMillis(500));

        assertThat(limiter.tryAcquire("j")).isTrue();
        Caller<Duration> interrupted = new Caller<>("interrupted", () -> limiter.key("j").acquire());
        time.awaitParked(interrupted.thread, T + 1_000_000);         // queued 500 ms
        interrupted.thread.interrupt();
        assertThat(interrupted.failure()).isInstanceOf(InterruptedException.class);
        assertThat(limiter.tryAcquire("j")).as("the permits it was queued with stay taken").isFalse();
    }

    @Test
    void whileTheStoreIsDownAnAcquireOfADenyingLimiterWaitsTheOutageOut() throws Exception {
        AtomicBoolean down = new AtomicBoolean(true);
        Engine engine = Engine.builder().timeSource(time).store(new ForwardingStore(
                MemoryStore.builder().timeSource(time).build()) {
            @Override
            protected void beforeEvaluate(List<Check> checks) {
                if (down.get()) {
                    throw new StoreException("connection refused");
                }
            }
        }).build();
        Limiter limiter = engine.limiter("partner", TWO_PER_SECOND, Rule.FailureMode.DENY);
        Caller<Duration> waiting = new Caller<>("waiting", () -> limiter.acquire("k"));
        time.awaitParked(waiting.thread, T + 1_000_000);            // denied meanwhile: retry after a second
        assertThat(limiter.tryAcquire("k", 1, Duration.ofMillis(999))).isFalse();
        down.set(false);
        time.advance(Duration.ofSeconds(1));
        assertThat(waiting.get()).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void aLineLastsOnlyWhileSomeoneIsInItSoHostileKeysTakeNoMemory() throws Exception {
        Limiter limiter = Engine.builder().timeSource(time).build()
                .limiter("partner", Policy.parse("1/1s").withAlgorithm(Algorithm.FIXED_WINDOW));
        for (int i = 0; i < 10_000; i++) {
            assertThat(limiter.acquire("key-" + i)).isEqualTo(Duration.ZERO);
            assertThat(limiter.tryAcquire("key-" + i, 1, Duration.ZERO)).isFalse();
        }
        assertThat(limiter.limits().lines().size()).isZero();
    }

    @Test
    void aLimiterStillRefusesAConcurrencyPolicy() {
        Engine engine = Engine.builder().timeSource(time).build();
        Function<Policy, Limiter> limiter = p -> engine.limiter("leases", p);
        assertThatThrownBy(() -> limiter.apply(Policy.concurrent(1))).isInstanceOf(IllegalArgumentException.class);
    }
}
