package io.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import io.sluice.core.store.Check;
import io.sluice.core.store.Lease;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.testing.ManualTimeSource;
import io.sluice.core.testing.RedisProcess;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.resps.LibraryInfo;

/**
 * How the script reaches each Redis the tests can start ({@link RedisProcess#binaries()}: the {@code redis-server} on
 * the {@code PATH}, Debian's 7.0 on CI, and the embedded 6.2): on 7 and later a function ({@code FCALL}, loaded with
 * {@code FUNCTION LOAD}, kept across restarts and failovers), on 6.2 and wherever functions are refused the script by
 * its SHA ({@code EVALSHA}). Each server counts what it was sent ({@code INFO commandstats}).
 */
class RedisFunctionsIT {

    private static final long T0 = ManualTimeSource.START_MICROS;

    /** A server started for one test; {@link #close} stops it. */
    private record Server(RedisProcess process, String version, boolean functions) implements AutoCloseable {

        static Server start(Path binary, String... args) throws Exception {
            RedisProcess process = RedisProcess.start(binary, args);
            String version = RedisProcess.version(process.url());
            return new Server(process, version, Integer.parseInt(version.substring(0, version.indexOf('.'))) >= 7);
        }

        String url() {
            return process.url();
        }

        RedisStore store() {
            return RedisStore.builder().url(url()).applicationTime(true).timeout(Duration.ofSeconds(2)).build();
        }

        CommandStats stats() {
            return CommandStats.of(url());
        }

        void resetStats() {
            CommandStats.reset(url());
        }

        <T> T admin(java.util.function.Function<Jedis, T> command) {
            try (Jedis jedis = new Jedis(URI.create(url()))) {
                return command.apply(jedis);
            }
        }

        /** @return the names of the function libraries the server has */
        List<String> libraries() {
            return admin(j -> j.functionList().stream().map(LibraryInfo::getLibraryName).toList());
        }

        @Override
        public void close() throws Exception {
            process.close();
        }
    }

    private static List<Path> binaries() throws Exception {
        return RedisProcess.binaries();
    }

    /**
     * The first Redis 7 or later the tests can start, given {@code args}; the test is skipped where there is none
     * (with {@code SLUICE_REDIS_SERVER=embedded}, the 6.2 alone). Each server's version is read from one started
     * without them: Redis 7's arguments ({@code -fcall} in an ACL) stop 6.2 from starting at all.
     */
    private static Server startRedis7(String... args) throws Exception {
        for (Path binary : binaries()) {
            Server server = Server.start(binary);
            if (server.functions() && args.length == 0) {
                return server;
            }
            boolean functions = server.functions();
            server.close();
            if (functions) {
                return Server.start(binary, args);
            }
        }
        assumeThat(false).as("no Redis 7 or later to start (on CI RedisDifferentialIT requires one)").isTrue();
        throw new AssertionError("unreachable");
    }

    private static Outcome one(RedisStore store, String key, Policy policy) {
        return store.evaluate(List.of(Check.of("r", key, policy, 1)), T0).get(0);
    }

    @Test
    void redis7CallsTheFunctionAndRedis62TheScriptByItsShaOneCommandPerRequest() throws Exception {
        for (Path binary : binaries()) {
            try (Server server = Server.start(binary); RedisStore store = server.store()) {
                Policy ten = Policy.parse("10/1h");
                assertThat(one(store, "warm", ten).remaining()).isEqualTo(9);     // loads what the server needs
                server.resetStats();

                assertThat(one(store, "k", ten).remaining()).isEqualTo(9);
                assertThat(store.evaluate(List.of(Check.of("r", "k", ten, 1), Check.of("s", "k", ten, 2)), T0))
                        .extracting(Outcome::remaining).containsExactly(8L, 8L);
                Check lease = new Check("c", "k", Policy.concurrent(1), 1, false, "lease-1");
                assertThat(store.evaluate(List.of(lease), T0).get(0).allowed()).isTrue();
                store.release(List.of(new Lease("c", "k", Policy.concurrent(1), "lease-1")), T0);

                String command = server.functions() ? "fcall" : "evalsha";
                assertThat(server.stats().calls()).as("Redis %s: every call one %s, nothing else", server.version(),
                        command).isEqualTo(Map.of(command, 4L));
                assertThat(server.stats().failed()).as("Redis %s", server.version()).containsEntry(command, 0L);
                if (server.functions()) {
                    assertThat(server.libraries()).as("Redis %s", server.version())
                            .containsExactly(ScriptLibrary.function());
                }
            }
        }
    }

    @Test
    void aFlushedFunctionOrScriptIsLoadedAgainAndTheRequestStillGetsItsDecision() throws Exception {
        for (Path binary : binaries()) {
            try (Server server = Server.start(binary); RedisStore store = server.store()) {
                Policy three = Policy.parse("3/1h");
                assertThat(one(store, "k", three).remaining()).isEqualTo(2);

                server.admin(Jedis::scriptFlush);
                server.resetStats();
                assertThat(one(store, "k", three).remaining()).isEqualTo(1);
                if (server.functions()) {
                    assertThat(server.stats().calls()).as("Redis %s: SCRIPT FLUSH leaves functions alone",
                            server.version()).isEqualTo(Map.of("fcall", 1L));

                    server.admin(Jedis::functionFlush);
                    server.resetStats();
                    assertThat(one(store, "k", three).remaining()).isEqualTo(0);
                    assertThat(server.stats().calls()).as("Redis %s: not found, loaded, called", server.version())
                            .isEqualTo(Map.of("fcall", 2L, "function|load", 1L));
                    assertThat(server.stats().failed()).containsEntry("fcall", 1L);
                } else {
                    // NOSCRIPT, then SCRIPT LOAD (never EVAL, whose scripts Redis 7.4 and later evict after 500 others)
                    assertThat(server.stats().calls()).as("Redis %s: NOSCRIPT, loaded, called", server.version())
                            .isEqualTo(Map.of("evalsha", 2L, "script", 1L));
                }
            }
        }
    }

    /**
     * Redis 6.2 writes {@code SCRIPT LOAD} to the AOF (and replicates it), so its script survives a restart as a
     * function does on 7; Redis 7 no longer does either for scripts (see the next test).
     */
    @Test
    void aRestartedRedisWithPersistenceIsCalledWithoutAReload() throws Exception {
        for (Path binary : binaries()) {
            try (Server server = Server.start(binary, "--appendonly", "yes", "--appendfsync", "always");
                    RedisStore store = server.store()) {
                Policy five = Policy.parse("5/1h");
                assertThat(one(store, "k", five).remaining()).isEqualTo(4);
                assertThat(one(store, "k", five).remaining()).isEqualTo(3);

                server.process().restart();       // SIGKILL: the AOF brings the state (and the function) back
                assertThat(one(store, "k", five).remaining()).as("Redis %s: the state survived", server.version())
                        .isEqualTo(2);
                String command = server.functions() ? "fcall" : "evalsha";
                assertThat(server.stats().calls()).as("Redis %s: no reload", server.version())
                        .isEqualTo(Map.of(command, 1L));
                assertThat(server.stats().failed()).containsEntry(command, 0L);
            }
        }
    }

    @Test
    void onRedis7AScriptIsLostInARestartWithPersistenceAndTheFunctionIsNot() throws Exception {
        // a user whose ACL denies FCALL: the store calls the script with EVALSHA, as before functions
        try (Server server = startRedis7("--appendonly", "yes", "--appendfsync", "always",
                "--user", "nofcall", "on", ">pw", "~*", "+@all", "-fcall");
                RedisStore function = server.store();
                RedisStore script = RedisStore.builder().url("redis://nofcall:pw@127.0.0.1:" + server.process().port())
                        .applicationTime(true).timeout(Duration.ofSeconds(2)).build()) {
            Policy five = Policy.parse("5/1h");
            assertThat(one(function, "f", five).remaining()).isEqualTo(4);
            assertThat(one(script, "s", five).remaining()).isEqualTo(4);

            server.process().restart();
            assertThat(one(function, "f", five).remaining()).isEqualTo(3);
            assertThat(one(script, "s", five).remaining()).isEqualTo(3);
            assertThat(server.stats().calls()).as("EVALSHA: NOSCRIPT, SCRIPT LOAD, EVALSHA; FCALL: called")
                    .isEqualTo(Map.of("fcall", 1L, "evalsha", 2L, "script|load", 1L));
            assertThat(server.stats().failed()).containsEntry("fcall", 0L).containsEntry("evalsha", 1L);
        }
    }

    @Test
    void aPromotedReplicaAlreadyHasTheFunction() throws Exception {
        try (Server master = startRedis7();
                RedisProcess replica = RedisProcess.start(master.process().binaryPath(), "--replicaof", "127.0.0.1",
                        Integer.toString(master.process().port()));
                RedisStore store = master.store()) {
            Policy five = Policy.parse("5/1h");
            assertThat(one(store, "k", five).remaining()).isEqualTo(4);
            awaitReplicated(master.url(), replica.url());

            try (Jedis promoted = new Jedis(URI.create(replica.url()))) {
                promoted.replicaofNoOne();                 // as a failover does
                promoted.configResetStat();
            }
            try (RedisStore after = RedisStore.builder().url(replica.url()).applicationTime(true)
                    .timeout(Duration.ofSeconds(2)).build()) {
                assertThat(one(after, "k", five).remaining()).isEqualTo(3);
            }
            assertThat(CommandStats.of(replica.url()).calls()).as("replicated: called at once, not loaded")
                    .isEqualTo(Map.of("fcall", 1L));
            assertThat(CommandStats.of(replica.url()).failed()).containsEntry("fcall", 0L);
        }
    }

    @Test
    void aUserWhoseAclDeniesFunctionsIsServedWithEvalsha() throws Exception {
        try (Server server = startRedis7()) {
            server.admin(j -> j.aclSetUser("nofcall", "on", ">pw", "~*", "+@all", "-fcall"));
            server.admin(j -> j.aclSetUser("noload", "on", ">pw", "~*", "+@all", "-function"));
            Policy ten = Policy.parse("10/1h");
            String port = Integer.toString(server.process().port());
            try (RedisStore noFcall = RedisStore.builder().url("redis://nofcall:pw@127.0.0.1:" + port)
                    .applicationTime(true).timeout(Duration.ofSeconds(2)).build()) {
                assertThat(one(noFcall, "a", ten).remaining()).isEqualTo(9);
                server.resetStats();
                assertThat(one(noFcall, "a", ten).remaining()).isEqualTo(8);
                assertThat(server.stats().calls()).as("FCALL denied: EVALSHA from then on").isEqualTo(Map.of("evalsha", 1L));
            }

            try (RedisStore noLoad = RedisStore.builder().url("redis://noload:pw@127.0.0.1:" + port)
                    .applicationTime(true).timeout(Duration.ofSeconds(2)).build();
                    RedisStore loader = server.store()) {
                assertThat(one(loader, "b", ten).remaining()).isEqualTo(9);      // the default user loads the library
                server.resetStats();
                assertThat(one(noLoad, "b", ten).remaining()).isEqualTo(8);
                assertThat(server.stats().calls()).as("FCALL needs no FUNCTION permission once another loaded it")
                        .isEqualTo(Map.of("fcall", 1L));

                server.admin(Jedis::functionFlush);
                assertThat(one(noLoad, "b", ten).remaining()).as("not found, FUNCTION LOAD denied: EVALSHA")
                        .isEqualTo(7);
                server.resetStats();
                assertThat(one(noLoad, "b", ten).remaining()).isEqualTo(6);
                assertThat(server.stats().calls()).isEqualTo(Map.of("evalsha", 1L));
            }
        }
    }

    /**
     * A request of one GCRA check of cost 1 (the fast mode) carries its policy; the function keeps what it parsed by
     * that argument, at most 256 policies, then anew, and a flushed function starts with none. Whatever it kept, every
     * call decides by its own policy, as the memory store does: 300 policies in turn, twice (the first ones parsed
     * again after the bound), and two nodes that count one key under two policies.
     */
    @Test
    void everyFastCallDecidesByItsOwnPolicyWhateverTheFunctionKeptParsed() throws Exception {
        for (Path binary : binaries()) {
            try (Server server = Server.start(binary); RedisStore store = server.store();
                    RedisStore other = server.store();
                    MemoryStore memory = MemoryStore.builder().timeSource(new ManualTimeSource()).build()) {
                long now = T0;
                for (int round = 0; round < 2; round++) {
                    for (int i = 0; i < 300; i++) {
                        Check c = Check.of("r", "k" + i, Policy.parse((i + 2) + "/1h"), 1);
                        assertThat(store.evaluate(List.of(c), now)).as("Redis %s, policy %d", server.version(), i)
                                .isEqualTo(memory.evaluate(List.of(c), now));
                    }
                    if (server.functions()) {
                        server.admin(Jedis::functionFlush);
                    }
                }
                Policy ten = Policy.parse("10/1h");
                Policy twenty = Policy.parse("20/1h");
                for (int i = 0; i < 30; i++) {
                    now += 7_000_000;
                    Check c = Check.of("r", "shared", i % 2 == 0 ? ten : twenty, 1);
                    assertThat((i % 2 == 0 ? store : other).evaluate(List.of(c), now)).as("Redis %s, call %d",
                            server.version(), i).isEqualTo(memory.evaluate(List.of(c), now));
                }
            }
        }
    }

    @Test
    void anotherSluiceVersionsLibraryIsLeftAlone() throws Exception {
        try (Server server = startRedis7(); RedisStore store = server.store()) {
            String other = "sluice_" + "0".repeat(16);
            server.admin(j -> j.functionLoad("#!lua name=" + other + "\nredis.register_function{function_name='"
                    + other + "', callback=function(KEYS, ARGV) return 'the other version' end}"));
            assertThat(one(store, "k", Policy.parse("2/1h")).remaining()).isEqualTo(1);

            assertThat(server.libraries()).containsExactlyInAnyOrder(other, ScriptLibrary.function());
            assertThat(ScriptLibrary.function()).isNotEqualTo(other);
            try (Jedis jedis = new Jedis(URI.create(server.url()))) {
                assertThat(jedis.fcall(other, List.of(), List.of())).isEqualTo("the other version");
            }
        }
    }

    /** Waits (bounded) until the replica has every write the master took. */
    private static void awaitReplicated(String master, String replica) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        try (Jedis m = new Jedis(URI.create(master)); Jedis r = new Jedis(URI.create(replica))) {
            while (!r.info("replication").contains("master_link_status:up") || m.waitReplicas(1, 1_000) < 1) {
                assertThat(System.nanoTime()).as("replication").isLessThan(deadline);
                Thread.onSpinWait();
            }
        }
    }
}
