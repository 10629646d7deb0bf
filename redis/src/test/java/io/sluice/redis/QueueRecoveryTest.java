package io.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.store.StoreException;
import io.sluice.core.testing.LogCapture;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * A worker's recovery from Redis faults, on a manual clock: the pauses between attempts while Redis cannot be reached,
 * one WARNING per outage and one INFO when it ends, and its group created again at once when Redis lost it.
 */
class QueueRecoveryTest {

    private static final StoreException REFUSED = new StoreException("admission queue q: Redis call failed: Failed"
            + " to connect to 127.0.0.1:6390.", new JedisConnectionException("Failed to connect to 127.0.0.1:6390.",
                    new java.net.ConnectException("Connection refused")));
    /** As Redis 7 answers the outcome script on a stream without its group. */
    private static final StoreException NOGROUP = new StoreException("admission queue q: Redis call failed",
            new JedisDataException("NOGROUP No such key '{sluice:queue:q}' or consumer group 'workers' in XPENDING"
                    + " command script: 3f2a, on @user_script:1."));

    private final AtomicLong nanos = new AtomicLong();
    private final QueueRecovery recovery = new QueueRecovery("admission queue q, worker w", "workers", nanos::get);
    private final LogCapture log = new LogCapture(AdmissionQueue.class.getName());

    @AfterEach
    void close() {
        log.close();
    }

    @Test
    void theGroupIsCreatedFirstAndThePausesOfAnOutageDoubleUpToTwoSecondsAndStartAgainOnceRedisAnswers() {
        assertThat(recovery.needsGroup()).isTrue();
        List<Long> pauses = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            pauses.add(recovery.failed(REFUSED));          // down at start-up: the group cannot be created
            nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(pauses.get(i)));
        }
        assertThat(pauses).containsExactly(50L, 100L, 200L, 400L, 800L, 1_600L, 2_000L, 2_000L);
        assertThat(recovery.needsGroup()).isTrue();

        recovery.groupCreated();
        assertThat(recovery.needsGroup()).isFalse();
        recovery.answered();                               // the first read after it: the outage is over
        assertThat(recovery.failed(REFUSED)).as("a new outage starts at the first pause").isEqualTo(50L);
        assertThat(log.warnings()).as("one line per outage, not per attempt").hasSize(2)
                .allSatisfy(w -> assertThat(w).startsWith("admission queue q, worker w: cannot reach Redis")
                        .contains("Failed to connect to 127.0.0.1:6390.", "Connection refused")
                        .doesNotContain("Redis call failed"));
        assertThat(log.messages()).filteredOn(m -> m.startsWith("INFO"))
                .containsExactly("INFO io.sluice.redis.AdmissionQueue: admission queue q, worker w: Redis answers"
                        + " again, after 7150 ms; going on");
    }

    @Test
    void aGroupRedisLostIsCreatedAgainAtOnceAndSaidOnce() {
        recovery.groupCreated();
        recovery.answered();                               // read from it: the group was there
        assertThat(recovery.failed(REFUSED)).isEqualTo(50L);          // restarting
        assertThat(recovery.failed(NOGROUP)).as("Redis answers: at once").isZero();
        assertThat(recovery.needsGroup()).isTrue();
        recovery.groupCreated();

        assertThat(log.warnings()).hasSize(2);
        assertThat(log.warnings().get(1)).startsWith("admission queue q, worker w: consumer group workers is missing")
                .contains("from the stream's start");
        assertThat(log.messages()).filteredOn(m -> m.startsWith("INFO")).hasSize(1);
    }

    @Test
    void aGroupMissingAgainBeforeAnyReadIsAFailureWithItsPausesNotALoop() {
        recovery.groupCreated();
        assertThat(recovery.failed(NOGROUP)).as("not seen since created: paused").isEqualTo(50L);
        recovery.groupCreated();
        assertThat(recovery.failed(NOGROUP)).isEqualTo(100L);
        assertThat(recovery.needsGroup()).isTrue();
        assertThat(log.warnings()).hasSize(1).allSatisfy(w -> assertThat(w).contains("cannot reach Redis", "NOGROUP"));
        assertThat(log.messages()).noneMatch(m -> m.startsWith("INFO"));
    }

    @Test
    void onlyRedisNoGroupAnswerIsAMissingGroup() {
        assertThat(QueueRecovery.missingGroup(NOGROUP)).isTrue();
        assertThat(QueueRecovery.missingGroup(new JedisDataException("NOGROUP No such key 'k' or consumer group 'g'"
                + " in XREADGROUP with GROUP option"))).isTrue();
        assertThat(QueueRecovery.missingGroup(REFUSED)).isFalse();
        assertThat(QueueRecovery.missingGroup(new JedisDataException("WRONGTYPE Operation against a key holding the"
                + " wrong kind of value"))).isFalse();
        assertThat(QueueRecovery.missingGroup(new StoreException("NOGROUP in a message of ours"))).isFalse();
    }
}
