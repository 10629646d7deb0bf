package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.Decision;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import io.sluice.core.request.RequestView;
import io.sluice.core.Rule;
import io.sluice.core.RuleOutcome;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.Test;

/**
 * The responder's cache of formatted header text is a plain array shared by every request thread, 16 slots for any
 * number of rules: under contention for the same slots, each request must still get its own rule's text.
 */
class ResponderRaceTest {

    @Test
    void rulesThatShareCacheSlotsNeverGetEachOthersHeaderText() throws Exception {
        Responder responder = Responder.builder().build();
        int threads = 6;
        int rulesPerThread = 8;            // 48 rules over 16 slots: every slot is fought over
        List<String> wrong = new CopyOnWriteArrayList<>();
        CyclicBarrier start = new CyclicBarrier(threads);
        RequestView request = RequestView.builder("GET", "/").remoteAddress("10.0.0.1").build();
        List<Thread> running = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            Thread thread = new Thread(() -> {
                List<Decision> decisions = new ArrayList<>();
                List<String> expected = new ArrayList<>();
                for (int r = 0; r < rulesPerThread; r++) {
                    long limit = 100 + id * rulesPerThread + r;
                    Rule rule = Rule.builder("rule-" + id + "-" + r).policy(Policy.parse(limit + "/1m")).build();
                    decisions.add(Decision.of(List.of(new RuleOutcome(rule, rule.policy(),
                            Outcome.allow(limit, 7, 30_000_000), RuleOutcome.Source.STORE)), List.of(), 0));
                    expected.add("\"" + rule.name() + "\";q=" + limit + ";w=60|" + limit);
                }
                try {
                    start.await();
                    for (int i = 0; i < 20_000; i++) {
                        int k = i % rulesPerThread;
                        List<String> seen = new ArrayList<>(2);
                        responder.allowedHeaders(decisions.get(k), request, 0, (name, value) -> {
                            if (name.equals("RateLimit-Policy") || name.equals("X-RateLimit-Limit")) {
                                seen.add(value);
                            }
                        });
                        String got = String.join("|", seen);
                        if (!got.equals(expected.get(k)) && wrong.size() < 5) {
                            wrong.add("expected " + expected.get(k) + ", got " + got);
                        }
                    }
                } catch (Exception e) {
                    wrong.add(e.toString());
                }
            });
            thread.start();
            running.add(thread);
        }
        for (Thread t : running) {
            t.join(60_000);
            assertThat(t.isAlive()).as("a thread still running after 60 s").isFalse();
        }
        assertThat(wrong).isEmpty();
    }
}
