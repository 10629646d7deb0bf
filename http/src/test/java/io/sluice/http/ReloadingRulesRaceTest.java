package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.key.ClientIpResolver;
import io.sluice.core.testing.ManualTimeSource;
import io.sluice.core.testing.TestThreads;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Reloads that overlap: a slow parse of one version of the file while a later look finds the next one. */
class ReloadingRulesRaceTest {

    private final ManualTimeSource time = new ManualTimeSource();

    private final AtomicInteger version = new AtomicInteger();
    private final AtomicReference<String> text = new AtomicReference<>("rules: [{name: v0, limit: 10/s}]");
    private final CountDownLatch parsingV1 = new CountDownLatch(1);
    private final CountDownLatch finishV1 = new CountDownLatch(1);

    /** Rules reloaded every second from a source in memory, whose parse of a version named v1 waits for the test. */
    private ReloadingRules rules(io.sluice.core.time.TimeSource clock) {
        RulesSource source = new RulesSource() {
            @Override
            public String name() {
                return "rules.yaml";
            }

            @Override
            public Object stamp() {
                return version.get();
            }

            @Override
            public String read() {
                return text.get();
            }
        };
        return new ReloadingRules("rules (init-param)", source, t -> {
            if (t.contains("v1")) {             // a slow parse (a large file, a slow disk, a stalled thread)
                parsingV1.countDown();
                try {
                    finishV1.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return RulesFile.parse("rules.yaml", t, ClientIpResolver.direct());
        }, 1_000_000, clock);
    }

    private void write(String name) {
        text.set("rules: [{name: " + name + ", limit: 10/s}]");
        version.incrementAndGet();
    }

    @Test
    void aSlowReloadOfAnOlderVersionDoesNotReplaceTheNewerRulesLoadedMeanwhile() throws Exception {
        ReloadingRules rules = rules(time);
        write("v1");
        time.advance(Duration.ofSeconds(1));
        CompletableFuture<RuleSet> slow = CompletableFuture.supplyAsync(rules::get, TestThreads.OWN);
        assertThat(parsingV1.await(10, TimeUnit.SECONDS)).isTrue();

        write("v2");                                              // the file changes again while v1 is parsed
        time.advance(Duration.ofSeconds(1));
        CompletableFuture<RuleSet> other = CompletableFuture.supplyAsync(rules::get, TestThreads.OWN);  // next due look
        assertThat(other.get(10, TimeUnit.SECONDS).names())
                .as("a request never waits for another's reload: it gets the rules in force").containsExactly("v0");
        finishV1.countDown();
        slow.get(10, TimeUnit.SECONDS);

        assertSettlesOnV2(rules);
    }

    /**
     * No slow parse needed: a request thread whose clock read is a moment older than the one that started a reload
     * ("a clock set back") also finds a reload due, and runs one alongside.
     */
    @Test
    void aClockReadOlderThanTheLastLookDoesNotStartASecondReloadAlongsideTheFirst() throws Exception {
        ThreadLocal<Long> lag = ThreadLocal.withInitial(() -> 0L);
        ReloadingRules rules = rules(() -> time.nowMicros() - lag.get());
        write("v1");
        time.advance(Duration.ofSeconds(1));
        CompletableFuture<RuleSet> first = CompletableFuture.supplyAsync(rules::get, TestThreads.OWN);    // v1, slowly
        assertThat(parsingV1.await(10, TimeUnit.SECONDS)).isTrue();

        write("v2");
        CompletableFuture<RuleSet> late = CompletableFuture.supplyAsync(() -> {
            lag.set(1L);                       // read the clock 1 µs before the first one did, ran after it
            try {
                return rules.get();
            } finally {
                lag.set(0L);
            }
        }, TestThreads.OWN);
        late.get(10, TimeUnit.SECONDS);
        finishV1.countDown();
        first.get(10, TimeUnit.SECONDS);

        assertSettlesOnV2(rules);
    }

    /** The file holds v2 and does not change again: a few looks later, so do the rules. */
    private void assertSettlesOnV2(ReloadingRules rules) {
        for (int i = 0; i < 3; i++) {
            time.advance(Duration.ofSeconds(1));
            rules.get();
        }
        assertThat(rules.get().names()).as("the file holds v2 and has not changed since").containsExactly("v2");
    }
}
