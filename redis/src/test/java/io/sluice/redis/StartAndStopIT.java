package io.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.Decision;
import io.sluice.core.Engine;
import io.sluice.core.Rule;
import io.sluice.core.RuleOutcome;
import io.sluice.core.key.KeyResolvers;
import io.sluice.core.policy.Policy;
import io.sluice.core.request.RequestView;
import io.sluice.core.store.FleetMessage;
import io.sluice.core.store.KeyOverride;
import io.sluice.core.store.SharedSettings;
import io.sluice.core.testing.Await;
import io.sluice.core.testing.ManualTimeSource;
import io.sluice.core.testing.RedisProcess;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;

/**
 * A node started while Redis is down, and nodes stopped whatever state Redis is in, on a real {@code redis-server}.
 * Started down, a node answers at once by each rule's failure mode and, once Redis is up, subscribes to the fleet's
 * channel and reads the settings in Redis, though no message told it to. Closed, a store leaves no
 * {@code sluice-fleet} thread running, though Redis answers nothing ({@code CLIENT PAUSE}) or was never reached.
 */
class StartAndStopIT {

    private static final Duration WITHIN = Duration.ofSeconds(10);
    private static final Rule OPEN = Rule.builder("open").policy("2/1h").key(KeyResolvers.header("X-Api-Key"))
            .onStoreFailure(Rule.FailureMode.ALLOW).build();
    private static final Rule CLOSED = Rule.builder("closed").policy("2/1h").key(KeyResolvers.header("X-Api-Key"))
            .onStoreFailure(Rule.FailureMode.DENY).build();
    private static final Policy PENALIZING = Policy.parse("1/1m penalty 5m");

    private final ManualTimeSource clock = new ManualTimeSource();
    private RedisProcess redis;
    private RedisStore storeA;
    private RedisStore storeB;
    private Engine a;
    private Engine b;

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : new AutoCloseable[] {a, b, storeA, storeB, redis}) {
            if (c != null) {
                c.close();
            }
        }
    }

    private RedisStore store(int port) {
        return RedisStore.builder().url("redis://127.0.0.1:" + port).applicationTime(true)
                .timeout(Duration.ofSeconds(2)).build();
    }

    /** A node that reads the shared settings only when told to: no periodic check. */
    private Engine node(RedisStore store) {
        return Engine.builder().timeSource(clock).store(store).rules(List.of(OPEN, CLOSED))
                .settingsInterval(Duration.ZERO).build();
    }

    private static Decision check(Engine node, Rule rule, String apiKey) {
        return node.check(RequestView.builder("GET", "/").header("X-Api-Key", apiKey).build(), List.of(rule));
    }

    @Test
    void aNodeStartedWithRedisDownAnswersByFailureModeAndCatchesUpWhenRedisIsUp() throws Exception {
        // an override in Redis's append-only file, there again when it restarts: no message tells a node of it
        redis = RedisProcess.start("--appendonly", "yes", "--appendfsync", "always");
        storeA = store(redis.port());
        SharedSettings direct = storeA.settings();
        direct.putOverride(new KeyOverride(OPEN.name(), direct.keyId("acme"), "5/1h", 0, "alice",
                clock.nowMicros() / 1000));
        redis.kill();

        storeB = store(redis.port());
        b = node(storeB);
        Decision open = check(b, OPEN, "acme");
        assertThat(open.allowed()).as("on-store-failure: allow").isTrue();
        assertThat(open.outcomes()).extracting(RuleOutcome::source).containsExactly(RuleOutcome.Source.FAILURE_ALLOWED);
        Decision closed = check(b, CLOSED, "acme");
        assertThat(closed.allowed()).as("on-store-failure: deny").isFalse();
        assertThat(closed.storeUnavailable()).isTrue();

        redis.restart();
        RedisFleetChannel channel = (RedisFleetChannel) storeB.fleet();
        Await.until("node B subscribed once Redis is up", WITHIN, channel::listening);
        Await.until("node B read the override in Redis as it subscribed", WITHIN,
                () -> b.operations().status().overrides() == 1);

        a = node(storeA);
        BlockingQueue<FleetMessage> atB = new LinkedBlockingQueue<>();
        storeB.fleet().listen(atB::add);        // after node B's engine: once heard here, applied there
        assertThat(a.tryAcquire("api", "203.0.113.9", PENALIZING, 1).allowed()).isTrue();
        assertThat(a.tryAcquire("api", "203.0.113.9", PENALIZING, 1).allowed()).isFalse();
        assertThat(a.tryAcquire("api", "203.0.113.9", PENALIZING, 1).allowed()).as("penalized").isFalse();
        FleetMessage heard = atB.poll(WITHIN.toSeconds(), TimeUnit.SECONDS);
        while (heard != null && heard.kind() != FleetMessage.Kind.PENALTY) {
            heard = atB.poll(WITHIN.toSeconds(), TimeUnit.SECONDS);
        }
        assertThat(heard).as("node B hears node A's penalty").isNotNull();
        clock.advance(Duration.ofMinutes(2));           // the minute's permit is back in Redis
        assertThat(b.tryAcquire("api", "203.0.113.9", PENALIZING, 0).allowed()).as("blocked on node B").isFalse();
    }

    @Test
    void closingAStoreEndsItsFleetThreadWhileRedisIsPaused() throws Exception {
        redis = RedisProcess.start();
        storeB = store(redis.port());
        b = node(storeB);
        assertThat(storeB.fleet().awaitListening(WITHIN)).isTrue();
        try (RedisClient admin = RedisClient.create(redis.url())) {
            admin.sendCommand(Protocol.Command.CLIENT, "PAUSE", "60000", "ALL");    // answers nobody, nor UNPAUSE
            assertClosingEndsTheThread();
        }
    }

    @Test
    void closingAStoreEndsItsFleetThreadWhenRedisWasNeverReached() throws Exception {
        storeB = store(RedisProcess.freePort());
        b = node(storeB);
        assertThat(storeB.fleet().awaitListening(WITHIN)).as("the first attempt failed").isFalse();
        assertClosingEndsTheThread();
    }

    /** Closes node B and its store: the subscription's thread has ended when close() returns. */
    private void assertClosingEndsTheThread() {
        Thread fleet = ((RedisFleetChannel) storeB.fleet()).thread();
        assertThat(fleet).isNotNull();
        assertThat(fleet.isAlive()).isTrue();
        b.close();
        assertThat(fleet.isAlive()).as("sluice-fleet once the engine closed its store").isFalse();
    }
}
