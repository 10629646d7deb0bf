package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.policy.Policy;
import io.sluice.core.store.FleetChannel;
import io.sluice.core.store.FleetMessage;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.store.SharedSettings;
import io.sluice.core.testing.SharedLocalSettings;
import io.sluice.core.testing.ForwardingStore;
import io.sluice.core.testing.ManualTimeSource;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * {@link Engine#detach()} over a store the application owns: a memory store posing as a shared one, with shared
 * settings and a fleet channel that delivers on the publisher's thread. After it, the threads the engine started end,
 * the channel no longer reaches the engine, and the store is still open.
 */
class EngineDetachTest {

    private static final Set<String> ENGINE_THREADS = Set.of("sluice-leased-permits", "sluice-shared-settings");
    private static final Policy LEASED = Policy.parse("1000/1s leased 100ms");
    private static final Policy PENALIZING = Policy.parse("1/1m penalty 5m");
    /** The longest a stopped thread may take to end. */
    private static final long END_WITHIN_MILLIS = 5_000;

    private final ManualTimeSource clock = new ManualTimeSource();
    private final AtomicBoolean storeClosed = new AtomicBoolean();
    private final AtomicBoolean channelClosed = new AtomicBoolean();
    private final List<Consumer<FleetMessage>> listeners = new CopyOnWriteArrayList<>();

    /** A channel of this process: publish delivers to every listener at once. */
    private final FleetChannel channel = new FleetChannel() {
        @Override
        public void publish(FleetMessage message) {
            listeners.forEach(l -> l.accept(message));
        }

        @Override
        public Listening listen(Consumer<FleetMessage> listener) {
            Consumer<FleetMessage> own = listener::accept;
            listeners.add(own);
            return () -> listeners.remove(own);
        }

        @Override
        public void close() {
            channelClosed.set(true);
            listeners.clear();
        }
    };

    /** The memory store's settings, posing as shared, so that the engine watches them. */
    private static SharedSettings sharedSettings() {
        return new SharedLocalSettings();
    }

    private ForwardingStore applicationStore() {
        SharedSettings settings = sharedSettings();
        return new ForwardingStore(MemoryStore.builder().timeSource(clock).build()) {
            @Override
            public boolean shared() {
                return true;
            }

            @Override
            public FleetChannel fleet() {
                return channel;
            }

            @Override
            public SharedSettings settings() {
                return settings;
            }

            @Override
            public void close() {
                storeClosed.set(true);
            }
        };
    }

    private static Set<Thread> engineThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && ENGINE_THREADS.contains(t.getName())).collect(Collectors.toSet());
    }

    private void penalize(String key) {
        channel.publish(new FleetMessage(FleetMessage.Kind.PENALTY, "another node", "api", key,
                clock.nowMicros() + Duration.ofMinutes(5).toNanos() / 1_000));
    }

    private boolean blocked(Engine engine, String key) {
        return !engine.tryAcquire("api", key, PENALIZING, 0).allowed();
    }

    @Test
    void detachEndsTheEnginesThreadsAndListenerAndLeavesTheStoreOpen() throws InterruptedException {
        Set<Thread> before = engineThreads();
        Engine engine = Engine.builder().timeSource(clock).store(applicationStore()).build();
        Set<Thread> started = Set.of();
        // a key seen a second time has a rate: its block is taken, on a thread of the leased permits
        for (int i = 0; i < 10 && started.stream().noneMatch(t -> t.getName().equals("sluice-leased-permits")); i++) {
            assertThat(engine.tryAcquire("leased", "k", LEASED, 1).allowed()).isTrue();
            clock.advanceMicros(1_000);
            started = engineThreads();
            started.removeAll(before);
        }
        assertThat(started).extracting(Thread::getName).as("the engine's threads")
                .contains("sluice-leased-permits", "sluice-shared-settings");
        penalize("198.51.100.1");
        assertThat(blocked(engine, "198.51.100.1")).as("the fleet's penalty reached the engine").isTrue();
        assertThat(listeners).hasSize(1);

        engine.detach();

        for (Thread t : started) {
            t.join(END_WITHIN_MILLIS);
            assertThat(t.isAlive()).as("%s after detach", t.getName()).isFalse();
        }
        assertThat(listeners).as("the engine's listener").isEmpty();
        penalize("198.51.100.2");
        assertThat(blocked(engine, "198.51.100.2")).as("a penalty sent after detach").isFalse();
        assertThat(storeClosed).as("the application's store").isFalse();
        assertThat(channelClosed).as("the store's channel").isFalse();
        assertThat(engine.tryAcquire("leased", "k", LEASED, 1).allowed())
                .as("a detached engine still decides").isTrue();
        engine.detach();                                  // idempotent

        engine.close();
        assertThat(storeClosed).as("close() closes the store").isTrue();
    }
}
