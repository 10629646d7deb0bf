package io.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.Engine;
import io.sluice.core.policy.Policy;
import io.sluice.core.store.FleetMessage;
import io.sluice.core.testing.ManualTimeSource;
import io.sluice.core.testing.RedisProcess;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Penalties and unblocks across a fleet: two engines (two nodes) on one real Redis, one application clock. A client
 * penalized on node A is blocked on node B; an unblock on A lifts it on B, its remembered denials included.
 *
 * <p>Messages arrive on the channel's own thread. The test listens on the receiving node's channel after its engine
 * does, so once the test has heard a message the engine has applied it: nothing is polled.
 */
class FleetPenaltiesIT {

    /** One a minute; a client that comes back while denied is blocked for five. */
    private static final Policy POLICY = Policy.parse("1/1m penalty 5m");
    /** The longest a message may take to arrive here. */
    private static final long WITHIN_SECONDS = 5;

    private final ManualTimeSource clock = new ManualTimeSource();
    private RedisProcess redis;
    private RedisStore storeA;
    private RedisStore storeB;
    private Engine a;
    private Engine b;

    @BeforeEach
    void start() throws Exception {
        redis = RedisProcess.start();
        storeA = store();
        storeB = store();
        a = Engine.builder().timeSource(clock).store(storeA).build();
        b = Engine.builder().timeSource(clock).store(storeB).build();
    }

    private RedisStore store() {
        return RedisStore.builder().url(redis.url()).applicationTime(true).timeout(Duration.ofSeconds(2)).build();
    }

    @AfterEach
    void stop() throws Exception {
        a.close();
        b.close();
        redis.close();
    }

    private boolean allowed(Engine node) {
        return node.tryAcquire("api", "203.0.113.9", POLICY, 1).allowed();
    }

    /**
     * @return what a store's channel delivers from now on, after every engine on that store has applied it, once the
     *     channel listens: a node that has not answered yet may still be subscribing (its first answer would wait)
     */
    private static BlockingQueue<FleetMessage> listen(RedisStore store) {
        BlockingQueue<FleetMessage> heard = new LinkedBlockingQueue<>();
        store.fleet().listen(heard::add);
        assertThat(store.fleet().awaitListening(Duration.ofSeconds(WITHIN_SECONDS))).as("subscribed").isTrue();
        return heard;
    }

    /** Waits (bounded) for a message of {@code kind}. */
    private static FleetMessage next(BlockingQueue<FleetMessage> heard, FleetMessage.Kind kind)
            throws InterruptedException {
        for (FleetMessage m = heard.poll(WITHIN_SECONDS, TimeUnit.SECONDS); m != null;
                m = heard.poll(WITHIN_SECONDS, TimeUnit.SECONDS)) {
            if (m.kind() == kind) {
                return m;
            }
        }
        throw new AssertionError("no " + kind + " message within " + WITHIN_SECONDS + " s");
    }

    @Test
    void aClientPenalizedOnOneNodeIsBlockedOnTheOther() throws Exception {
        BlockingQueue<FleetMessage> atB = listen(storeB);
        assertThat(allowed(a)).isTrue();
        assertThat(allowed(a)).isFalse();
        assertThat(allowed(a)).as("back too soon: blocked for five minutes").isFalse();
        assertThat(next(atB, FleetMessage.Kind.PENALTY).key()).isEqualTo("203.0.113.9");
        clock.advance(Duration.ofMinutes(2));           // the minute's permit is back in Redis
        assertThat(b.tryAcquire("api", "203.0.113.9", POLICY, 0).allowed())
                .as("node B blocks the client without asking Redis").isFalse();
        assertThat(allowed(b)).isFalse();
        assertThat(b.tryAcquire("api", "198.51.100.1", POLICY, 1).allowed()).as("another client").isTrue();
    }

    @Test
    void anUnblockOnOneNodeLiftsThePenaltyOnTheOther() throws Exception {
        BlockingQueue<FleetMessage> atA = listen(storeA);
        BlockingQueue<FleetMessage> atB = listen(storeB);
        allowed(b);
        allowed(b);
        allowed(b);                                     // penalized on B
        next(atA, FleetMessage.Kind.PENALTY);
        clock.advance(Duration.ofMinutes(2));
        assertThat(a.tryAcquire("api", "203.0.113.9", POLICY, 0).allowed()).isFalse();
        a.reset("api", "203.0.113.9");                  // the admin unblocks on A
        assertThat(allowed(a)).isTrue();
        next(atB, FleetMessage.Kind.RESET);
        assertThat(b.tryAcquire("api", "203.0.113.9", POLICY, 0).allowed()).as("node B forgot the penalty").isTrue();
    }

    /** A servlet filter's engine and JAX-RS's may share one store: both listen, each hears the other. */
    @Test
    void twoEnginesOnOneStoreBothHear() throws Exception {
        RedisStore shared = store();
        Engine filter = Engine.builder().timeSource(clock).store(shared).build();
        Engine jaxrs = Engine.builder().timeSource(clock).store(shared).build();
        try {
            BlockingQueue<FleetMessage> heard = listen(shared);
            allowed(filter);
            allowed(filter);
            allowed(filter);
            next(heard, FleetMessage.Kind.PENALTY);
            clock.advance(Duration.ofMinutes(2));
            assertThat(jaxrs.tryAcquire("api", "203.0.113.9", POLICY, 0).allowed()).isFalse();
        } finally {
            filter.close();
            jaxrs.close();
        }
    }

    /**
     * An engine detached from a store its application keeps (undeploy) no longer listens on the store's channel: it
     * hears no penalty, while the store and its channel go on serving those that still listen.
     */
    @Test
    void aDetachedEngineNoLongerListens() throws Exception {
        RedisFleetChannel channel = (RedisFleetChannel) storeB.fleet();
        assertThat(channel.listenerCount()).as("node B's engine").isEqualTo(1);
        b.detach();
        assertThat(channel.listenerCount()).as("after detach").isZero();
        BlockingQueue<FleetMessage> atB = listen(storeB);
        allowed(a);
        allowed(a);
        allowed(a);                                     // penalized on A
        assertThat(next(atB, FleetMessage.Kind.PENALTY).key()).as("the store's channel still delivers")
                .isEqualTo("203.0.113.9");
        clock.advance(Duration.ofMinutes(2));           // the minute's permit is back in Redis
        assertThat(b.tryAcquire("api", "203.0.113.9", POLICY, 0).allowed())
                .as("the detached engine did not hear the penalty").isTrue();
        assertThat(channel.listenerCount()).as("the test's listener").isEqualTo(1);
    }

    @Test
    void messagesThatAreNotOursAreIgnored() {
        assertThat(RedisFleetChannel.decode("hello")).isNull();
        assertThat(RedisFleetChannel.decode("P|x|12|99|r")).isNull();
        assertThat(RedisFleetChannel.decode("P|x|y|1|rk")).isNull();
        FleetMessage m = new FleetMessage(FleetMessage.Kind.PENALTY, "node", "api", "k|with|bars", 42);
        assertThat(RedisFleetChannel.decode(RedisFleetChannel.encode(m))).isEqualTo(m);
    }
}
