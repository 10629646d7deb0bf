package io.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.Engine;
import io.sluice.core.policy.Policy;
import io.sluice.core.store.FleetMessage;
import io.sluice.core.testing.ManualTimeSource;
import io.sluice.core.testing.RedisProcess;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Penalties and unblocks across a fleet: two engines (two nodes) on one real Redis, one application clock. A client
 * penalized on node A is blocked on node B; an unblock on A lifts it on B, its remembered denials included.
 */
class FleetPenaltiesIT {

    /** One a minute; a client that comes back while denied is blocked for five. */
    private static final Policy POLICY = Policy.parse("1/1m penalty 5m");
    /** How long a message may take to reach the other node here: delivery is asynchronous. */
    private static final long WITHIN_NANOS = Duration.ofSeconds(5).toNanos();

    private final ManualTimeSource clock = new ManualTimeSource();
    private RedisProcess redis;
    private Engine a;
    private Engine b;

    @BeforeEach
    void start() throws Exception {
        redis = RedisProcess.start();
        a = node();
        b = node();
    }

    private Engine node() {
        return Engine.builder().timeSource(clock).store(RedisStore.builder().url(redis.url()).applicationTime(true)
                .timeout(Duration.ofSeconds(2)).build()).build();
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

    /** Waits (bounded) until {@code condition} holds; the messages travel on a thread of their own. */
    private static boolean eventually(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + WITHIN_NANOS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(10);
        }
        return true;
    }

    @Test
    void aClientPenalizedOnOneNodeIsBlockedOnTheOther() throws Exception {
        assertThat(allowed(a)).isTrue();
        assertThat(allowed(a)).isFalse();
        assertThat(allowed(a)).as("back too soon: blocked for five minutes").isFalse();
        clock.advance(Duration.ofMinutes(2));           // the minute's permit is back in Redis
        assertThat(eventually(() -> !b.tryAcquire("api", "203.0.113.9", POLICY, 0).allowed()))
                .as("node B blocks the client without asking Redis").isTrue();
        assertThat(allowed(b)).isFalse();
        assertThat(b.tryAcquire("api", "198.51.100.1", POLICY, 1).allowed()).as("another client").isTrue();
    }

    @Test
    void anUnblockOnOneNodeLiftsThePenaltyOnTheOther() throws Exception {
        allowed(b);
        allowed(b);
        allowed(b);                                     // penalized on B
        clock.advance(Duration.ofMinutes(2));
        assertThat(eventually(() -> !a.tryAcquire("api", "203.0.113.9", POLICY, 0).allowed())).isTrue();
        a.reset("api", "203.0.113.9");                  // the admin unblocks on A
        assertThat(allowed(a)).isTrue();
        assertThat(eventually(() -> b.tryAcquire("api", "203.0.113.9", POLICY, 0).allowed()))
                .as("node B forgot the penalty").isTrue();
    }

    /** A servlet filter's engine and JAX-RS's may share one store: both listen, each hears the other. */
    @Test
    void twoEnginesOnOneStoreBothHear() throws Exception {
        RedisStore shared = RedisStore.builder().url(redis.url()).applicationTime(true).timeout(Duration.ofSeconds(2))
                .build();
        Engine filter = Engine.builder().timeSource(clock).store(shared).build();
        Engine jaxrs = Engine.builder().timeSource(clock).store(shared).build();
        try {
            allowed(filter);
            allowed(filter);
            allowed(filter);
            clock.advance(Duration.ofMinutes(2));
            assertThat(eventually(() -> !jaxrs.tryAcquire("api", "203.0.113.9", POLICY, 0).allowed())).isTrue();
        } finally {
            filter.close();
            jaxrs.close();
        }
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
