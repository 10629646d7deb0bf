package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Policy;
import io.sluice.core.policy.Outcome;
import io.sluice.core.request.RequestView;
import io.sluice.core.store.Check;
import io.sluice.core.store.Lease;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.store.Store;
import io.sluice.core.testing.ManualTimeSource;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class PenaltyTest {

    private final ManualTimeSource time = new ManualTimeSource();
    private final AtomicInteger storeCalls = new AtomicInteger();
    private final RequestView client = RequestView.builder("POST", "/login").remoteAddress("203.0.113.5").build();

    private Engine engine(String limit, int denialCacheSize) {
        MemoryStore memory = MemoryStore.builder().timeSource(time).build();
        Store counting = new Store() {
            @Override
            public List<Outcome> evaluate(List<Check> checks, long nowMicros) {
                storeCalls.incrementAndGet();
                return memory.evaluate(checks, nowMicros);
            }

            @Override
            public void release(List<Lease> leases, long nowMicros) {}

            @Override
            public void reset(String rule, String key) {
                memory.reset(rule, key);
            }
        };
        return Engine.builder().timeSource(time).store(counting).denialCacheSize(denialCacheSize)
                .rule(Rule.builder("login").policy(Policy.parse(limit)).key(RequestView::remoteAddress).build())
                .build();
    }

    @Test
    void aClientThatComesBackWhileDeniedIsBlockedForThePenalty() {
        for (int cacheSize : new int[] {0, 100}) {
            Engine engine = engine("2/1s burst 2 penalty 1m", cacheSize);
            assertThat(engine.check(client).allowed()).isTrue();
            assertThat(engine.check(client).allowed()).isTrue();
            Decision first = engine.check(client);
            assertThat(first.allowed()).isFalse();
            assertThat(first.retryAfterMicros()).as("the ordinary wait").isEqualTo(500_000);

            time.advance(Duration.ofMillis(100));                        // did not wait: hammering
            Decision penalized = engine.check(client);
            assertThat(penalized.allowed()).isFalse();
            assertThat(penalized.retryAfterMicros()).as("cache size %d", cacheSize).isEqualTo(60_000_000);

            time.advance(Duration.ofSeconds(30));
            storeCalls.set(0);
            Decision stillBlocked = engine.check(client);
            assertThat(stillBlocked.allowed()).isFalse();
            assertThat(stillBlocked.retryAfterMicros()).as("a blocked request does not extend the block").isEqualTo(30_000_000);
            assertThat(storeCalls).as("blocked without a store call").hasValue(0);

            time.advance(Duration.ofSeconds(30));
            assertThat(engine.check(client).allowed()).as("back after the penalty").isTrue();
        }
    }

    @Test
    void aClientThatWaitsItsRetryAfterIsNeverPenalized() {
        Engine engine = engine("1/1s burst 1 penalty 1h", 0);
        for (int i = 0; i < 5; i++) {
            assertThat(engine.check(client).allowed()).isTrue();
            Decision denied = engine.check(client);
            assertThat(denied.retryAfterMicros()).isEqualTo(1_000_000);
            time.advance(Duration.ofSeconds(1));
        }
    }

    @Test
    void resetLiftsThePenalty() {
        Engine engine = engine("1/1s burst 1 penalty 1h", 0);
        engine.check(client);
        engine.check(client);
        engine.check(client);
        assertThat(engine.check(client).retryAfterMicros()).isGreaterThan(3_000_000_000L);
        engine.reset("login", "203.0.113.5");
        assertThat(engine.check(client).allowed()).isTrue();
    }

    @Test
    void theNotationReadsAndWritesThePenalty() {
        assertThat(Policy.parse("10/1m penalty 5m").penaltyMicros()).isEqualTo(300_000_000L);
        assertThat(Policy.parse("10/1m penalty 5m").toString()).contains("penalty 5m");
    }

    /** Rules a (1 per 10 s) and b (2 per minute, with {@code penalty}), fixed windows, on the client's address. */
    private Engine twoRules(String bPenalty) {
        return Engine.builder().timeSource(time).store(MemoryStore.builder().timeSource(time).build())
                .rule(Rule.builder("a").policy(Policy.of(Algorithm.FIXED_WINDOW, 1, Duration.ofSeconds(10)))
                        .key(RequestView::remoteAddress).build())
                .rule(Rule.builder("b").policy(io.sluice.core.policy.PolicyParser.parse("limit", "2/1m" + bPenalty,
                        Algorithm.FIXED_WINDOW)).key(RequestView::remoteAddress).build())
                .build();
    }

    @Test
    void aRememberedDenialAnswersWithTheLongestWaitOfEveryRuleKnownToDeny() {
        Engine engine = twoRules("");
        assertThat(engine.check(client).allowed()).isTrue();                    // t=0
        time.advance(Duration.ofSeconds(10));
        assertThat(engine.check(client).allowed()).isTrue();                    // t=10: a's next window, b's second
        time.advance(Duration.ofSeconds(1));
        Decision fromStore = engine.check(client);                              // t=11: both deny
        assertThat(fromStore.binding().rule().name()).isEqualTo("b");
        assertThat(fromStore.retryAfterMicros()).isEqualTo(49_000_000);

        time.advance(Duration.ofSeconds(1));
        Decision fromMemory = engine.check(client);                             // t=12: both remembered
        assertThat(fromMemory.allowed()).isFalse();
        assertThat(fromMemory.binding().rule().name()).as("not the first rule remembered: the longest wait").isEqualTo("b");
        assertThat(fromMemory.retryAfterMicros()).isEqualTo(48_000_000);
        assertThat(fromMemory.outcomes()).extracting(o -> o.rule().name()).containsExactlyInAnyOrder("a", "b");

        time.advance(Duration.ofSeconds(48));
        assertThat(engine.check(client).allowed()).as("at t=60, as it was told").isTrue();
    }

    @Test
    void aClientThatWaitsTheAnswerFromMemoryIsNotPenalized() {
        Engine engine = twoRules(" penalty 5m");
        engine.check(client);                                                   // t=0
        time.advance(Duration.ofSeconds(10));
        engine.check(client);                                                   // t=10
        time.advance(Duration.ofSeconds(1));
        Decision first = engine.check(client);                                  // t=11: denied, b until t=60
        assertThat(first.retryAfterMicros()).isEqualTo(49_000_000);

        time.advance(Duration.ofSeconds(first.retryAfterMicros() / 1_000_000));
        assertThat(engine.check(client).allowed()).as("t=60: obeyed, never penalized").isTrue();

        Decision denied = engine.check(client);                                 // t=60: a denies until t=70
        assertThat(denied.retryAfterMicros()).isEqualTo(10_000_000);
        time.advance(Duration.ofSeconds(1));
        Decision hammering = engine.check(client);                              // t=61, before its retry time
        assertThat(hammering.retryAfterMicros()).as("a has no penalty: its remembered wait").isEqualTo(9_000_000);
    }

    /**
     * The interleaving of two requests of one key: the second was denied by the store before the first's denial started
     * the block, and remembers its denial after. It must not replace the running block with a plain retry time.
     */
    @Test
    void aDenialRememberedWhileTheKeyIsBlockedKeepsTheBlock() {
        PenaltyBox box = new PenaltyBox(100, time);
        Rule rule = Rule.builder("login").policy(Policy.parse("2/1s burst 2 penalty 1m")).key(RequestView::remoteAddress)
                .build();
        Check check = new Check("login", "203.0.113.5", rule.policy(), 1, false, null);
        java.util.function.Supplier<Decision> denial = () -> Decision.of(List.of(new RuleOutcome(rule, rule.policy(),
                Outcome.deny(2, 0, 500_000, 500_000), RuleOutcome.Source.STORE)), List.of(), time.nowMicros());

        box.remember(List.of(check), denial.get(), time.nowMicros());              // told to wait 0.5 s
        time.advance(Duration.ofMillis(100));
        Decision penalized = box.remember(List.of(check), denial.get(), time.nowMicros());
        assertThat(penalized.retryAfterMicros()).as("back too soon: blocked for the penalty").isEqualTo(60_000_000);

        time.advance(Duration.ofSeconds(1));          // past the first retry time, well inside the block
        box.remember(List.of(check), denial.get(), time.nowMicros());       // a denial decided before the block began

        assertThat(box.deny(List.of(rule), List.of(check), time.nowMicros())).as("still blocked").isNotNull();
    }
}
