package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.Engine;
import io.sluice.core.RateLimitExceededException;
import io.sluice.core.testing.ManualTimeSource;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The gate's wait for a pause, on a manual clock: two gates of one limit on one engine are two nodes sharing a store,
 * one of them told by the remote while the other waits.
 */
class OutboundGateTest {

    private final ManualTimeSource clock = new ManualTimeSource();
    private final Engine engine = Engine.builder().timeSource(clock).build();
    private final OutboundLimit limit = OutboundLimit.builder("partner", "100/1h").maxWait(Duration.ofSeconds(10))
            .build();
    private final OutboundGate waiting = new OutboundGate(engine, limit);
    private final OutboundGate told = new OutboundGate(engine, limit);

    @AfterEach
    void close() {
        engine.close();
    }

    private void answer429(OutboundGate gate, String retryAfter) {
        Map<String, List<String>> fields = Map.of("Retry-After", List.of(retryAfter));
        gate.learn(429, name -> fields.getOrDefault(name, List.of()));
    }

    @Test
    void aPauseExtendedWhileACallWaitsKeepsItWaitingOrRefusesIt() throws Exception {
        answer429(told, "2");
        CompletableFuture<Throwable> entered = new CompletableFuture<>();
        Thread caller = new Thread(() -> {
            try {
                waiting.enter();
                entered.complete(null);
            } catch (Throwable t) {
                entered.complete(t);
            }
        });
        caller.start();
        clock.awaitParked(caller, ManualTimeSource.START_MICROS + 2_000_000);
        answer429(told, "30");          // the remote answers another node 429 again while this call waits
        clock.advance(Duration.ofSeconds(2));
        // 28 s of pause left, 8 s of the call's 10 s: refused, not sent during the pause
        assertThat(entered.get(10, TimeUnit.SECONDS)).isInstanceOf(RateLimitExceededException.class);
        assertThat(((RateLimitExceededException) entered.get()).retryAfter()).isEqualTo(Duration.ofSeconds(28));
    }

    @Test
    void aPauseExtendedWithinTheCallsTimeIsWaitedOutToo() throws Exception {
        answer429(told, "2");
        CompletableFuture<Long> enteredAt = new CompletableFuture<>();
        Thread caller = new Thread(() -> {
            try {
                waiting.enter();
                enteredAt.complete(clock.nowMicros());
            } catch (Throwable t) {
                enteredAt.completeExceptionally(t);
            }
        });
        caller.start();
        clock.awaitParked(caller, ManualTimeSource.START_MICROS + 2_000_000);
        answer429(told, "5");
        clock.advance(Duration.ofSeconds(2));
        clock.awaitParked(caller, ManualTimeSource.START_MICROS + 5_000_000);
        assertThat(enteredAt).isNotDone();
        clock.advance(Duration.ofSeconds(3));
        assertThat(enteredAt.get(10, TimeUnit.SECONDS)).isEqualTo(ManualTimeSource.START_MICROS + 5_000_000);
    }

    @Test
    void aPauseAtTheCapExtendsARunningOneOnEveryNode() {
        answer429(told, "300");
        clock.advanceMicros(500);           // the running pause now ends 299,999.5 ms from now
        answer429(told, "31536000");        // a year: cut to the cap, 10 minutes
        long cap = limit.maxRemotePause().toNanos() / 1000;
        // counted in whole milliseconds, within the capacity: within a millisecond of the cap, not the 5 minutes left
        assertThat(waiting.pausedMicros()).isBetween(cap - 1000, cap);
    }

    @Test
    void aPauseBegunWhileACallWaitsForItsPermitsIsWaitedOutToo() throws Exception {
        OutboundLimit twoSeconds = OutboundLimit.builder("spaced", "1/2s").maxWait(Duration.ofSeconds(10)).build();
        OutboundGate caller = new OutboundGate(engine, twoSeconds);
        OutboundGate other = new OutboundGate(engine, twoSeconds);
        caller.enter();                                     // the permit of the next 2 s
        CompletableFuture<Throwable> entered = new CompletableFuture<>();
        Thread waiter = new Thread(() -> {
            try {
                caller.enter();
                entered.complete(null);
            } catch (Throwable t) {
                entered.complete(t);
            }
        });
        waiter.start();
        clock.awaitParked(waiter, ManualTimeSource.START_MICROS + 2_000_000);
        answer429(other, "30");             // another node told while this call waits for its permit
        clock.advance(Duration.ofSeconds(2));
        assertThat(entered.get(10, TimeUnit.SECONDS)).isInstanceOf(RateLimitExceededException.class);
        assertThat(((RateLimitExceededException) entered.get()).retryAfter()).isEqualTo(Duration.ofSeconds(28));
    }
}
