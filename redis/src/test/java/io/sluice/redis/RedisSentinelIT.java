package io.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.store.Check;
import io.sluice.core.store.StoreException;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import io.sluice.core.testing.ManualTimeSource;
import io.sluice.core.testing.RedisProcess;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/** A Sentinel failover: the master dies, Sentinel promotes the replica, and the limiter follows the new master. */
class RedisSentinelIT {

    @Test
    void theLimiterFollowsTheNewMasterAfterAFailover() throws Exception {
        try (RedisProcess master = RedisProcess.start();
                RedisProcess replica = RedisProcess.start("--replicaof", "127.0.0.1", Integer.toString(master.port()));
                RedisProcess sentinel = RedisProcess.sentinel("sluice-master", master.port());
                RedisStore store = RedisStore.builder()
                        .sentinel("sluice-master", Set.of("127.0.0.1:" + sentinel.port()))
                        .applicationTime(true).timeout(Duration.ofMillis(500)).build()) {
            long now = ManualTimeSource.START_MICROS;
            Policy five = Policy.parse("5/1h");
            for (int i = 0; i < 3; i++) {
                assertThat(store.evaluate(List.of(Check.of("r", "k", five, 1)), now).get(0).allowed()).isTrue();
            }
            awaitReplicated(master, replica);

            master.kill();
            Outcome after = firstAnswer(store, Check.of("r", "k", five, 1), now, 60, "the limiter reaches the promoted replica");
            assertThat(after.remaining()).as("the replicated state carried over: 3 used before, this is the 4th")
                    .isEqualTo(1);
            try (RedisClient promoted = RedisClient.create(replica.url())) {
                assertThat(promoted.info("replication")).contains("role:master");
            }
        }
    }

    @Test
    void sentinelsThatRequireAPasswordAreAskedWithTheirOwnCredentials() throws Exception {
        try (RedisProcess master = RedisProcess.start("--requirepass", "master-secret");
                RedisProcess sentinel = RedisProcess.sentinel("auth-master", master.port(),
                        "requirepass sentinel-secret", "sentinel auth-pass auth-master master-secret")) {
            long now = ManualTimeSource.START_MICROS;
            Policy two = Policy.parse("2/1h");
            try (RedisStore store = sentinelStore("auth-master", sentinel).credentials(null, "master-secret")
                    .sentinelCredentials(null, "sentinel-secret").build()) {
                Outcome first = firstAnswer(store, Check.of("r", "k", two, 1), now, 30, "the store reaches the master");
                assertThat(first.remaining()).isEqualTo(1);
                assertThat(store.evaluate(List.of(Check.of("r", "k", two, 1)), now).get(0).remaining()).isZero();
            }
            String url = "redis-sentinel://:master-secret@127.0.0.1:" + sentinel.port() + "/auth-master"
                    + "?time=application&timeout=500ms&prefix=from-url";
            try (RedisStore store = RedisStore.builder().url(url).sentinelCredentials(null, "sentinel-secret").build()) {
                Outcome first = firstAnswer(store, Check.of("r", "k", two, 1), now, 30, "the URL's store reaches the master");
                assertThat(first.remaining()).as("a prefix of its own: a key of its own").isEqualTo(1);
                try (RedisClient master0 = RedisClient.create("redis://:master-secret@127.0.0.1:" + master.port())) {
                    assertThat(master0.exists(store.key("r", "k"))).as("on the master the sentinels named").isTrue();
                }
            }
            try (RedisStore store = sentinelStore("auth-master", sentinel).credentials(null, "master-secret").build()) {
                assertThatThrownBy(() -> store.evaluate(List.of(Check.of("r", "k", two, 1)), now))
                        .as("the master's password alone does not open the sentinels").isInstanceOf(StoreException.class)
                        .hasMessageContaining("All sentinels down").hasMessageEndingWith(" is running. Are the sentinels"
                                + " running and reachable at 127.0.0.1:" + sentinel.port() + "? If they are and require"
                                + " a password of their own (requirepass in sentinel.conf), give it with"
                                + " sentinelCredentials(user, password).");
            }
            try (RedisStore store = sentinelStore("auth-master", sentinel).credentials(null, "master-secret")
                    .sentinelCredentials(null, "wrong-secret").build()) {
                assertThatThrownBy(() -> store.evaluate(List.of(Check.of("r", "k", two, 1)), now))
                        .as("sentinel credentials given but refused").isInstanceOf(StoreException.class)
                        .hasMessageEndingWith(" is running. Are the sentinels running and reachable at 127.0.0.1:"
                                + sentinel.port() + "? If they are, do sentinelCredentials(...) match their requirepass"
                                + " in sentinel.conf?");
            }
        }
    }

    private static RedisStore.Builder sentinelStore(String master, RedisProcess sentinel) {
        return RedisStore.builder().sentinel(master, Set.of("127.0.0.1:" + sentinel.port())).applicationTime(true)
                .timeout(Duration.ofMillis(500));
    }

    @Test
    void aSentinelDownAtStartUpDoesNotStopTheApplicationAndIsUsedOnceItAnswers() throws Exception {
        int sentinelPort = RedisProcess.freePort();
        try (RedisStore store = RedisStore.builder().sentinel("late-master", Set.of("127.0.0.1:" + sentinelPort))
                .applicationTime(true).timeout(Duration.ofMillis(500)).build()) {       // nothing listens yet
            long now = ManualTimeSource.START_MICROS;
            Policy two = Policy.parse("2/1h");
            assertThatThrownBy(() -> store.evaluate(List.of(Check.of("r", "k", two, 1)), now))
                    .as("a store failure, which the engine answers with on-store-failure").isInstanceOf(StoreException.class)
                    .as("nothing listens: the hint asks first whether the sentinels run and are reachable")
                    .hasMessageContaining("All sentinels down").hasMessageContaining(". Are the sentinels running and"
                            + " reachable at 127.0.0.1:" + sentinelPort + "? If they are and require a password of"
                            + " their own");

            try (RedisProcess master = RedisProcess.start();
                    RedisProcess sentinel = RedisProcess.sentinelOn(sentinelPort, "late-master", master.port())) {
                Outcome first = firstAnswer(store, Check.of("r", "k", two, 1), now, 30,
                        "the store reaches the sentinel once it is up");
                assertThat(first.allowed()).isTrue();
                assertThat(store.evaluate(List.of(Check.of("r", "k", two, 1)), now).get(0).remaining()).isZero();
            }
        }
    }

    @Test
    void whileOneThreadConnectsTheOthersFallBackAtOnceInsteadOfWaitingInTurn() throws Exception {
        try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {         // a "sentinel" that accepts connections and never answers
                List<java.net.Socket> held = new java.util.ArrayList<>();
                try {
                    while (true) {
                        held.add(silent.accept());
                    }
                } catch (java.io.IOException closed) {
                    for (java.net.Socket socket : held) {
                        try {
                            socket.close();
                        } catch (java.io.IOException ignored) {
                            // closing anyway
                        }
                    }
                }
            });
            acceptor.start();
            Check check = Check.of("r", "k", Policy.parse("2/1h"), 1);
            try (RedisStore store = RedisStore.builder().sentinel("m", Set.of("127.0.0.1:" + silent.getLocalPort()))
                    .applicationTime(true).timeout(Duration.ofSeconds(2)).build()) {     // built: no answer yet
                int callers = 8;
                java.util.concurrent.CyclicBarrier together = new java.util.concurrent.CyclicBarrier(callers);
                java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(callers);
                List<java.util.concurrent.Future<String>> answers = new java.util.ArrayList<>();
                for (int i = 0; i < callers; i++) {
                    answers.add(pool.submit(() -> {
                        together.await();
                        try {
                            store.evaluate(List.of(check), ManualTimeSource.START_MICROS);
                            return "answered";
                        } catch (StoreException e) {
                            return e.getMessage();
                        }
                    }));
                }
                List<String> messages = new java.util.ArrayList<>();
                for (java.util.concurrent.Future<String> a : answers) {
                    messages.add(a.get(60, TimeUnit.SECONDS));
                }
                pool.shutdown();
                assertThat(messages).as("one caller tries to connect; the others fall back without waiting for it")
                        .anyMatch(m -> m.startsWith("connecting to the Redis store"))
                        .anyMatch(m -> m.startsWith("cannot reach the Redis store"))
                        .noneMatch(m -> m.equals("answered"));
            }
            silent.close();
            acceptor.join(10_000);
        }
    }

    /** Asks {@code store} again and again (bounded) until it answers instead of failing: waiting for an outside event. */
    private static Outcome firstAnswer(RedisStore store, Check check, long now, int seconds, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (true) {
            assertThat(System.nanoTime()).as(what).isLessThan(deadline);
            try {
                return store.evaluate(List.of(check), now).get(0);
            } catch (StoreException notYet) {
                Thread.onSpinWait();
            }
        }
    }

    /** Waits (bounded) until the replica has every write the master took, not merely the first of them. */
    private static void awaitReplicated(RedisProcess master, RedisProcess replica) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        try (redis.clients.jedis.Jedis m = new redis.clients.jedis.Jedis(java.net.URI.create(master.url()));
                RedisClient r = RedisClient.create(replica.url())) {
            while (!r.info("replication").contains("master_link_status:up") || m.waitReplicas(1, 1_000) < 1) {
                assertThat(System.nanoTime()).as("replication").isLessThan(deadline);
                Thread.onSpinWait();
            }
        }
    }
}
