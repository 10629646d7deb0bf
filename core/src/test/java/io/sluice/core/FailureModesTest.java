package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.policy.Policy;
import io.sluice.core.request.RequestView;
import io.sluice.core.store.Check;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.store.StoreException;
import io.sluice.core.testing.ForwardingStore;
import io.sluice.core.testing.LogCapture;
import io.sluice.core.testing.ManualTimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;

/**
 * Fail-open is loud: when the store fails, one ERROR line names the rules by what they do meanwhile, and one line says
 * when they are back on the store; {@link Engine#health()} shows the same. A real memory store behind a switch that
 * fails like an unreachable Redis, on a manual clock.
 */
class FailureModesTest {

    private static final RequestView REQUEST = RequestView.builder("GET", "/").remoteAddress("10.0.0.1").build();

    private final ManualTimeSource time = new ManualTimeSource();
    private final AtomicBoolean down = new AtomicBoolean();
    private final ForwardingStore switchable = new ForwardingStore(MemoryStore.builder().timeSource(time).build()) {
        @Override
        protected void beforeEvaluate(List<Check> checks) {
            if (down.get()) {
                throw new StoreException("connection refused");
            }
        }
    };

    private static Rule rule(String name, Rule.FailureMode mode) {
        return Rule.builder(name).policy("100000/1m").key(RequestView::remoteAddress).onStoreFailure(mode).build();
    }

    /** Three rules, one per failure mode, on three nodes. */
    private Engine.Builder engine() {
        return Engine.builder().timeSource(time).store(switchable).nodeCount(3)
                .rule(rule("per-ip", Rule.FailureMode.ALLOW)).rule(rule("login", Rule.FailureMode.DENY))
                .rule(rule("export", Rule.FailureMode.LOCAL));
    }

    @Test
    void oneErrorLineNamesTheRulesByWhatTheyDoUntilTheStoreAnswersAndOneLineSaysWhenTheyAreBack() {
        Engine engine = engine().build();
        engine.check(REQUEST);
        assertThat(engine.health()).isEqualTo(new StoreHealth(true, -1, java.util.Map.of(), 0, 0));
        try (LogCapture log = new LogCapture(Engine.class.getName())) {
            down.set(true);
            time.advance(Duration.ofSeconds(1));
            for (int i = 0; i < 100; i++) {
                assertThat(engine.check(REQUEST).allowed()).as("the deny rule refuses").isFalse();
            }

            assertThat(log.errors()).as("one line for the transition, not one per request").singleElement()
                    .asString().contains("rate-limit store ForwardingStore failing since 2023-11-14T00:00:01Z",
                            "(3 consecutive failures, the last: io.sluice.core.store.StoreException: connection refused)",
                            "one probe every 500 ms", "unlimited (allow): per-ip", "refusing with 503 (deny): login",
                            "on this node's share (local, limit / 3): export");
            StoreHealth failing = engine.health();
            assertThat(failing.up()).isFalse();
            assertThat(failing.failingSinceMicros()).isEqualTo(ManualTimeSource.START_MICROS + 1_000_000);
            assertThat(failing.failing(Rule.FailureMode.ALLOW)).containsExactly("per-ip");
            assertThat(failing.failing(Rule.FailureMode.DENY)).containsExactly("login");
            assertThat(failing.failing(Rule.FailureMode.LOCAL)).containsExactly("export");
            assertThat(failing.refusing()).isTrue();
            assertThat(failing.outageDecisions()).as("since the breaker opened, at the third").isEqualTo(98);
            assertThat(failing.failureModeDecisions()).isEqualTo(100);

            time.advance(Duration.ofSeconds(41));
            down.set(false);
            assertThat(engine.check(REQUEST).binding().source()).isEqualTo(RuleOutcome.Source.STORE);
            engine.check(REQUEST);

            assertThat(log.at(Level.INFO)).singleElement().asString().contains(" answers again after 41 s failing"
                    + " (since 2023-11-14T00:00:01Z); 98 decisions were answered by failure mode meanwhile; back on the"
                    + " store: were unlimited (allow): per-ip; were refusing with 503 (deny): login; were on this"
                    + " node's share (local, limit / 3): export");
            assertThat(log.errors()).hasSize(1);
            assertThat(engine.health()).isEqualTo(new StoreHealth(true, -1, java.util.Map.of(), 0, 100));
        }
    }

    @Test
    void manyThreadsFailingAndRecoveringTogetherLogOneLineForEachTransition() throws Exception {
        AtomicInteger answeredByFailureMode = new AtomicInteger();
        Engine engine = engine().listener((request, decision, event) -> {
            if (event == DecisionListener.Event.STORE_FAILURE) {
                answeredByFailureMode.incrementAndGet();
            }
        }).build();
        try (LogCapture log = new LogCapture(Engine.class.getName())) {
            down.set(true);
            together(16, 200, () -> engine.check(REQUEST));
            assertThat(log.errors()).as("16 threads failing at once").hasSize(1);
            assertThat(log.at(Level.INFO)).isEmpty();

            down.set(false);
            time.advance(Duration.ofSeconds(1));
            together(16, 200, () -> engine.check(REQUEST));

            assertThat(log.at(Level.INFO)).as("16 threads succeeding at once").hasSize(1);
            assertThat(log.errors()).hasSize(1);
        }
        assertThat(engine.health().up()).isTrue();
        assertThat(engine.health().failureModeDecisions()).as("every decision the listeners saw answered so")
                .isEqualTo(answeredByFailureMode.get()).isGreaterThanOrEqualTo(3_200);
    }

    @Test
    void aRuleOrLimitFirstAnsweredByItsFailureModeDuringTheOutageIsNamedOnALineOfItsOwnAtMostOnceAMinute() {
        Engine engine = Engine.builder().timeSource(time).store(switchable).rule(rule("per-ip", Rule.FailureMode.ALLOW))
                .build();
        Rule annotated = rule("annotated", Rule.FailureMode.DENY);
        Rule another = rule("another", Rule.FailureMode.ALLOW);
        try (LogCapture log = new LogCapture(Engine.class.getName())) {
            down.set(true);
            for (int i = 0; i < 3; i++) {
                engine.check(REQUEST);
            }
            assertThat(log.errors()).singleElement().asString().contains("unlimited (allow): per-ip")
                    .doesNotContain("annotated");

            for (int i = 0; i < 10; i++) {
                engine.check(REQUEST, List.of(annotated));
            }
            assertThat(log.errors()).hasSize(2).last().asString().contains(" still failing (since ",
                    "now also answering by failure mode: refusing with 503 (deny): annotated");
            engine.check(REQUEST, List.of(another));
            engine.limiter("partner-api", Policy.parse("10/1s"), Rule.FailureMode.DENY).tryAcquire("acct-42");
            assertThat(log.errors()).as("within the minute: held back").hasSize(2);
            assertThat(engine.health().failing(Rule.FailureMode.ALLOW)).containsExactly("per-ip", "another");
            assertThat(engine.health().failing(Rule.FailureMode.DENY)).containsExactly("annotated", "partner-api");

            time.advance(Duration.ofSeconds(61));
            engine.check(REQUEST);
            assertThat(log.errors()).hasSize(3).last().asString().contains(
                    "now also answering by failure mode: unlimited (allow): another; refusing with 503 (deny): "
                            + "partner-api");
        }
    }

    @Test
    void aLimitOfTheProgrammaticApiWhoseCallOpensTheBreakerIsNamedInTheFirstLine() {
        Engine engine = Engine.builder().timeSource(time).store(switchable).build();
        Limiter partner = engine.limiter("partner-api", Policy.parse("10/1s"), Rule.FailureMode.LOCAL);
        try (LogCapture log = new LogCapture(Engine.class.getName())) {
            down.set(true);
            for (int i = 0; i < 3; i++) {
                partner.tryAcquire("acct-42");
            }
            assertThat(log.errors()).singleElement().asString().contains("rate-limit store ForwardingStore failing",
                    "on this node's share (local, node-count 1: the whole limit): partner-api");
            assertThat(engine.health().failing(Rule.FailureMode.LOCAL)).containsExactly("partner-api");
        }
    }

    @Test
    void theRulesInForceAreReadWhenTheStoreBeginsToFail() {
        List<Rule> inForce = new ArrayList<>(List.of(rule("first", Rule.FailureMode.ALLOW)));
        Engine engine = Engine.builder().timeSource(time).store(switchable).rulesInForce(() -> List.copyOf(inForce))
                .build();
        inForce.add(rule("reloaded", Rule.FailureMode.DENY));           // a reload of the rules file, say
        try (LogCapture log = new LogCapture(Engine.class.getName())) {
            down.set(true);
            for (int i = 0; i < 3; i++) {
                engine.check(REQUEST, inForce);
            }
            assertThat(log.errors()).singleElement().asString()
                    .contains("unlimited (allow): first; refusing with 503 (deny): reloaded");
        }
    }

    /** Runs {@code task} {@code times} on each of {@code threads} threads, all started together; bounded. */
    private static void together(int threads, int times, Runnable task) throws InterruptedException {
        CountDownLatch start = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(threads);
        for (int t = 0; t < threads; t++) {
            Thread thread = new Thread(() -> {
                try {
                    start.await();
                    for (int i = 0; i < times; i++) {
                        task.run();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    done.countDown();
                }
            }, "failure-modes-test-" + t);
            thread.setDaemon(true);
            thread.start();
        }
        start.countDown();
        assertThat(done.await(60, TimeUnit.SECONDS)).as("the threads ended").isTrue();
    }
}
