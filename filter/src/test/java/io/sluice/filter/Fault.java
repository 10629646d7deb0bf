package io.sluice.filter;

import io.sluice.core.testing.Await;
import java.time.Duration;
import java.util.List;
import redis.clients.jedis.Protocol;

/**
 * A fault of {@link FaultMatrixIT}, which a {@link FaultyRedis} suffers while an application runs on it: injected, then
 * healed (after which the test measures how long the application takes to work exactly again). Each fault also says
 * how its redis-server is started (persistence, an eviction policy) and what it does to the requests in between.
 */
enum Fault {

    /** {@code SIGKILL}, then started again on its port from its append-only file ({@code appendfsync always}). */
    KILLED("killed and restarted", "--appendonly", "yes", "--appendfsync", "always") {
        @Override
        void inject(FaultyRedis redis, HttpLoad load) throws Exception {
            redis.process().kill();
        }

        @Override
        void heal(FaultyRedis redis) throws Exception {
            redis.process().restart();
        }
    },

    /** {@code SIGKILL}, then started again on its port with no persistence: every key, script and group gone. */
    RESTARTED_EMPTY("restarted empty") {
        @Override
        void inject(FaultyRedis redis, HttpLoad load) throws Exception {
            redis.process().kill();
        }

        @Override
        void heal(FaultyRedis redis) throws Exception {
            redis.process().restart();
        }
    },

    /**
     * {@code CLIENT PAUSE} {@value #PAUSE_MILLIS} {@code ALL}: connections are accepted and nothing is answered until
     * the pause ends (Redis 7.0 holds even a {@code CLIENT UNPAUSE} until then, so the heal waits for the end).
     */
    PAUSED("CLIENT PAUSE") {
        @Override
        void inject(FaultyRedis redis, HttpLoad load) {
            redis.admin(r -> r.sendCommand(Protocol.Command.CLIENT, "PAUSE", Long.toString(PAUSE_MILLIS), "ALL"));
        }

        @Override
        void heal(FaultyRedis redis) {
            Await.until("the end of the pause", Duration.ofSeconds(10), redis::answers);
        }
    },

    /**
     * {@code SCRIPT FLUSH} and, on Redis 7 and later, {@code FUNCTION FLUSH}, {@value #FLUSHES} times under load: the
     * calls meet {@code NOSCRIPT} or an unknown function, and load them again. Nothing falls back.
     */
    SCRIPTS_FLUSHED("SCRIPT FLUSH + FUNCTION FLUSH") {
        @Override
        void inject(FaultyRedis redis, HttpLoad load) {
            boolean functions = !redis.version().startsWith("6.");
            for (int i = 0; i < FLUSHES; i++) {
                load.awaitMore(10);
                redis.admin(r -> {
                    r.scriptFlush();
                    return functions ? r.functionFlush() : "no functions before Redis 7";
                });
            }
        }

        @Override
        void heal(FaultyRedis redis) {
            // nothing to heal: the scripts are loaded again by the calls that miss them
        }
    },

    /** {@code maxmemory 1} with {@code noeviction}: every write refused with {@code OOM}; {@code maxmemory 0} heals. */
    OUT_OF_MEMORY("out of memory", "--maxmemory-policy", "noeviction") {
        @Override
        void inject(FaultyRedis redis, HttpLoad load) {
            redis.admin(r -> r.configSet("maxmemory", "1"));
        }

        @Override
        void heal(FaultyRedis redis) {
            redis.admin(r -> r.configSet("maxmemory", "0"));
        }
    },

    /** Nothing listens on the port when the application starts; a redis-server starts on it to heal. */
    DOWN_AT_START_UP("down at start-up") {
        @Override
        void inject(FaultyRedis redis, HttpLoad load) {
            // down already
        }

        @Override
        void heal(FaultyRedis redis) throws Exception {
            redis.startNow();
        }
    };

    /** How long {@link #PAUSED} pauses Redis: {@value} ms. */
    static final long PAUSE_MILLIS = 1_000;
    /** How many times {@link #SCRIPTS_FLUSHED} flushes: {@value}. */
    static final int FLUSHES = 5;

    private final String title;
    private final List<String> serverArgs;

    Fault(String title, String... serverArgs) {
        this.title = title;
        this.serverArgs = List.of(serverArgs);
    }

    /** Breaks Redis; {@code load} runs meanwhile (a fault made of several strokes waits on it in between). */
    abstract void inject(FaultyRedis redis, HttpLoad load) throws Exception;

    /** Lets Redis answer again; returns once it does. */
    abstract void heal(FaultyRedis redis) throws Exception;

    /** @return the arguments of its redis-server, added to {@link io.sluice.core.testing.RedisProcess}'s */
    String[] serverArgs() {
        return serverArgs.toArray(String[]::new);
    }

    /** @return whether Redis is up when the application starts */
    boolean upAtStart() {
        return this != DOWN_AT_START_UP;
    }

    /** @return whether Redis comes back without the data it had: keys, settings, streams and their groups */
    boolean losesData() {
        return this == RESTARTED_EMPTY;
    }

    /**
     * @return whether every decision's call fails from the injection to the heal (out of memory: every write), so that
     *     the rules answer by their failure modes, which a test may look at while the fault lasts (a pause ends by
     *     itself, and a flush fails no call)
     */
    boolean failsEveryCall() {
        return this == KILLED || this == RESTARTED_EMPTY || this == OUT_OF_MEMORY || this == DOWN_AT_START_UP;
    }

    /** @return whether no request falls back for it: with {@code on-store-failure: deny}, not one 503 */
    boolean transparent() {
        return this == SCRIPTS_FLUSHED;
    }

    @Override
    public String toString() {
        return title;
    }
}
