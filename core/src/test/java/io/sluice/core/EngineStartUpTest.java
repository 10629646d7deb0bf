package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.key.KeyResolvers;
import io.sluice.core.request.RequestView;
import io.sluice.core.store.KeyOverride;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.store.SharedSettings;
import io.sluice.core.testing.SharedLocalSettings;
import io.sluice.core.testing.Await;
import io.sluice.core.testing.ForwardingStore;
import io.sluice.core.testing.ManualTimeSource;
import io.sluice.core.testing.TestThreads;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An engine's start over a shared store whose settings do not answer: a memory store posing as a shared one, whose
 * settings' reads are held (as a Redis that accepts and never answers would hold them) until the test lets them go,
 * heedless of interrupts, as a socket read is. Building the engine waits for no read; its first answer waits for the
 * first one; closing it waits for the thread that reads.
 */
class EngineStartUpTest {

    private static final Duration WITHIN = Duration.ofSeconds(10);
    private static final Rule RULE = Rule.builder("api").policy("3/1h").key(KeyResolvers.header("X-Api-Key")).build();

    private final ManualTimeSource clock = new ManualTimeSource();
    private final HeldSettings settings = new HeldSettings();

    @AfterEach
    void letGo() {
        settings.release();
    }

    /** The memory store's settings, posing as shared, whose reads wait until {@link #release()}. */
    private static final class HeldSettings extends SharedLocalSettings {
        private final CountDownLatch released = new CountDownLatch(1);
        private final AtomicBoolean entered = new AtomicBoolean();
        private final AtomicBoolean interrupted = new AtomicBoolean();
        private final AtomicBoolean returned = new AtomicBoolean();

        private void hold() {
            entered.set(true);
            while (released.getCount() > 0) {
                try {
                    released.await();
                } catch (InterruptedException e) {
                    interrupted.set(true);      // heedless, as a socket read
                }
            }
        }

        void release() {
            released.countDown();
        }

        @Override
        public long version() {
            hold();
            long v = local().version();
            returned.set(true);
            return v;
        }
    }

    private ForwardingStore store() {
        return new ForwardingStore(MemoryStore.builder().timeSource(clock).build()) {
            @Override
            public boolean shared() {
                return true;
            }

            @Override
            public SharedSettings settings() {
                return settings;
            }
        };
    }

    private CompletableFuture<Engine> buildElsewhere() {
        return CompletableFuture.supplyAsync(() -> Engine.builder().timeSource(clock).store(store()).rule(RULE)
                .settingsInterval(Duration.ZERO).build(), TestThreads.OWN);
    }

    @Test
    void buildingTheEngineWaitsForNoReadOfTheStore() {
        CompletableFuture<Engine> built = buildElsewhere();
        Await.until("the engine built while the store holds its first read", WITHIN, built::isDone);
        Await.until("the first read under way", WITHIN, settings.entered::get);
        assertThat(settings.returned).as("the read, still held").isFalse();
        settings.release();
        built.join().close();
    }

    @Test
    void theFirstAnswerWaitsForTheFirstReadAndAppliesItsOverrides() {
        settings.local().putOverride(new KeyOverride("api", "acme", "1/1h", 0, "alice", 0));
        CompletableFuture<Engine> built = buildElsewhere();
        Await.until("the engine built", WITHIN, built::isDone);
        Engine engine = built.join();
        AtomicReference<Thread> answering = new AtomicReference<>();
        CompletableFuture<Decision> first = CompletableFuture.supplyAsync(() -> {
            answering.set(Thread.currentThread());
            return engine.check(RequestView.builder("GET", "/").header("X-Api-Key", "acme").build());
        }, TestThreads.OWN);
        // answered at once without the override, or waiting (timed) for the read: only then is the read let go
        Await.until("the first answer given, or waiting for the read", WITHIN, () -> first.isDone()
                || answering.get() != null && answering.get().getState() == Thread.State.TIMED_WAITING);
        settings.release();
        Decision d = first.join();
        assertThat(d.allowed()).isTrue();
        assertThat(d.outcomes()).extracting(o -> o.outcome().limit()).as("acme's override, 1/1h, read first")
                .containsExactly(1L);
        engine.close();
    }

    @Test
    void closingTheEngineWaitsForTheThreadThatReads() throws Exception {
        CompletableFuture<Engine> built = buildElsewhere();
        Await.until("the engine built", WITHIN, built::isDone);
        Engine engine = built.join();
        Await.until("the first read under way", WITHIN, settings.entered::get);
        AtomicReference<Thread> closing = new AtomicReference<>();
        CompletableFuture<Boolean> closed = CompletableFuture.supplyAsync(() -> {
            closing.set(Thread.currentThread());
            engine.close();
            return settings.returned.get();
        }, TestThreads.OWN);
        Await.until("the read's thread interrupted", WITHIN, settings.interrupted::get);
        // returned already (not waiting), or waiting (timed) for the thread: only then is the read let go
        Await.until("close() returned, or waiting for the thread", WITHIN, () -> closed.isDone()
                || closing.get() != null && closing.get().getState() == Thread.State.TIMED_WAITING);
        settings.release();
        assertThat(closed.get(WITHIN.toMillis(), TimeUnit.MILLISECONDS)).as("close() returned after the read").isTrue();
    }
}
