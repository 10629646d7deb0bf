package io.sluice.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.testing.LogCapture;
import io.sluice.core.testing.ManualTimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class CircuitBreakerTest {

    private final ManualTimeSource time = new ManualTimeSource();
    private final CircuitBreaker breaker = new CircuitBreaker("redis", 3, 500_000, time);
    private final StoreException down = new StoreException("connection refused");

    @Test
    void opensAfterConsecutiveFailuresAndShortCircuits() {
        for (int i = 0; i < 3; i++) {
            assertThat(breaker.tryAcquire()).isTrue();
            breaker.onFailure(down);
        }
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
        assertThat(breaker.tryAcquire()).as("open: no call goes through").isFalse();
    }

    @Test
    void aSuccessInBetweenResetsTheCount() {
        breaker.onFailure(down);
        breaker.onFailure(down);
        breaker.onSuccess();
        breaker.onFailure(down);
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
    }

    @Test
    void afterTheCoolDownOneProbeGoesThroughAndClosesOnSuccess() {
        for (int i = 0; i < 3; i++) {
            breaker.onFailure(down);
        }
        time.advance(Duration.ofMillis(499));
        assertThat(breaker.tryAcquire()).isFalse();
        time.advance(Duration.ofMillis(1));

        assertThat(breaker.tryAcquire()).as("the probe").isTrue();
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.HALF_OPEN);
        assertThat(breaker.tryAcquire()).as("only one probe at a time").isFalse();

        breaker.onSuccess();
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
        assertThat(breaker.tryAcquire()).isTrue();
    }

    @Test
    void aFailedProbeOpensAgainForAnotherCoolDown() {
        for (int i = 0; i < 3; i++) {
            breaker.onFailure(down);
        }
        time.advance(Duration.ofMillis(500));
        assertThat(breaker.tryAcquire()).isTrue();
        breaker.onFailure(down);

        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
        assertThat(breaker.tryAcquire()).isFalse();
        time.advance(Duration.ofMillis(500));
        assertThat(breaker.tryAcquire()).isTrue();
    }

    /**
     * Failures too few in a row to open the breaker are each answered by the fallback: the first is logged at once with
     * its cause, the next ones of the minute are only counted, and the count comes a minute later with the last cause.
     */
    @Test
    void theFirstFailureIsLoggedAtOnceWithItsCauseAndTheOthersOnceAMinute() {
        try (LogCapture log = new LogCapture(CircuitBreaker.class.getName())) {
            breaker.onFailure(new StoreException("OOM command not allowed"));
            List<String> first = log.warnings();
            assertThat(first).as("the first failure, at once").hasSize(1);
            assertThat(first.get(0)).contains("a call failed", "OOM command not allowed");
            for (int i = 0; i < 5; i++) {
                breaker.onSuccess();
                time.advance(Duration.ofSeconds(10));
                breaker.onFailure(i == 4 ? down : new StoreException("OOM command not allowed"));
            }
            assertThat(breaker.state()).as("never enough in a row to open").isEqualTo(CircuitBreaker.State.CLOSED);
            assertThat(log.warnings()).as("within the minute: counted, not logged").hasSize(1);

            time.advance(Duration.ofSeconds(11));
            breaker.onFailure(down);
            assertThat(log.warnings()).hasSize(2);
            assertThat(log.warnings().get(1)).contains("6 calls failed", "in the last 61 s", "connection refused");
        }
    }

    @Test
    void aLongOutageLogsItsStartAndItsEndNotEveryProbe() {
        try (LogCapture log = new LogCapture(CircuitBreaker.class.getName())) {
            for (int i = 0; i < 3; i++) {
                breaker.onFailure(down);
            }
            for (int probe = 0; probe < 20; probe++) {         // ten seconds of an outage, a probe every 500 ms
                time.advance(Duration.ofMillis(500));
                assertThat(breaker.tryAcquire()).isTrue();
                breaker.onFailure(down);
            }
            time.advance(Duration.ofMillis(500));
            assertThat(breaker.tryAcquire()).isTrue();
            breaker.onSuccess();

            List<String> lines = log.messages();
            assertThat(lines.stream().filter(l -> l.contains("circuit open after 3 consecutive failures")))
                    .as("the outage's start, once: %s", lines).hasSize(1);
            assertThat(lines.stream().filter(l -> l.contains("recovered, circuit closed after 10 s open")))
                    .as("its end, with its length: %s", lines).hasSize(1);
            assertThat(lines).as("nothing per probe").hasSizeLessThanOrEqualTo(3);
        }
    }

    /**
     * The engine names the rules by failure mode when the breaker opens and says they are back when it closes: with
     * many threads failing and succeeding at once, it must hear each transition once, opened and closed in turn, and
     * end where the breaker is.
     */
    @Test
    void aListenerHearsEachOpeningAndClosingOnceAndInTurnWhateverTheThreads() throws Exception {
        List<String> heard = Collections.synchronizedList(new ArrayList<>());
        CircuitBreaker listened = new CircuitBreaker("redis", 1, 500_000, time, new CircuitBreaker.Listener() {
            @Override
            public void opened(long nowMicros, int failures, Throwable cause) {
                heard.add("opened");
            }

            @Override
            public void closed(long nowMicros, long openedAtMicros) {
                heard.add("closed");
            }
        });
        int threads = 8;
        CountDownLatch start = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(threads);
        for (int t = 0; t < threads; t++) {
            Thread thread = new Thread(() -> {
                try {
                    start.await();
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int i = 0; i < 20_000; i++) {
                        if (random.nextBoolean()) {
                            listened.onFailure(down);
                        } else {
                            listened.onSuccess();
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    done.countDown();
                }
            }, "breaker-test-" + t);
            thread.setDaemon(true);
            thread.start();
        }
        start.countDown();
        assertThat(done.await(60, TimeUnit.SECONDS)).as("the threads ended").isTrue();

        assertThat(heard).as("transitions happened").hasSizeGreaterThan(10);
        for (int i = 0; i < heard.size(); i++) {
            assertThat(heard.get(i)).as("transition %d of %d", i, heard.size()).isEqualTo(i % 2 == 0 ? "opened" : "closed");
        }
        assertThat(listened.state() == CircuitBreaker.State.CLOSED).as("the last heard is where it is")
                .isEqualTo(heard.get(heard.size() - 1).equals("closed"));
    }
}
