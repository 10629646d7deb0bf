package io.sluice.filter;

import io.sluice.core.testing.RedisProcess;
import java.io.IOException;
import java.util.List;
import java.util.function.Function;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The redis-server of one cell of {@link FaultMatrixIT}, on a port of its own: started as its {@link Fault} needs (with
 * an append-only file, {@code noeviction}), or not at all for a fault that begins before the application starts, and
 * read from outside, as an operator would with {@code redis-cli}, on connections of their own.
 */
final class FaultyRedis implements AutoCloseable {

    private final Fault fault;
    private final int port;
    private RedisProcess process;

    private FaultyRedis(Fault fault, int port, RedisProcess process) {
        this.fault = fault;
        this.port = port;
        this.process = process;
    }

    /** A redis-server for {@code fault}: started now, or a free port where none listens yet. */
    static FaultyRedis prepare(Fault fault) throws IOException {
        if (!fault.upAtStart()) {
            return new FaultyRedis(fault, RedisProcess.freePort(), null);
        }
        RedisProcess started = RedisProcess.start(fault.serverArgs());
        return new FaultyRedis(fault, started.port(), started);
    }

    String url() {
        return "redis://127.0.0.1:" + port;
    }

    /** @return the server, once started */
    RedisProcess process() {
        return process;
    }

    /** Starts the server on the port, where none was started yet. */
    void startNow() throws IOException {
        process = RedisProcess.startOn(port, fault.serverArgs());
    }

    /** @return what {@code command} gives, on a connection of its own with a 2 s timeout */
    <T> T admin(Function<Jedis, T> command) {
        try (Jedis jedis = new Jedis("127.0.0.1", port, 2_000)) {
            return command.apply(jedis);
        }
    }

    /** @return whether the server answers a {@code PING} within 200 ms */
    boolean answers() {
        try (Jedis jedis = new Jedis("127.0.0.1", port, 200)) {
            return "PONG".equals(jedis.ping());
        } catch (JedisException e) {
            return false;
        }
    }

    /** @return the server's version, such as {@code 7.0.15} */
    String version() {
        return RedisProcess.version(url());
    }

    /** @return the connections subscribed to {@code channel} now */
    long subscribers(String channel) {
        return admin(r -> r.pubsubNumSub(channel).getOrDefault(channel, 0L));
    }

    /**
     * @return the script calls the server ran since it started ({@code EVALSHA}, {@code EVAL}, {@code FCALL}), from
     *     {@code INFO commandstats}
     */
    long scriptCalls() {
        String stats = admin(r -> r.info("commandstats"));
        long calls = 0;
        for (String line : stats.split("\r?\n")) {
            for (String command : List.of("evalsha", "eval", "fcall")) {
                String head = "cmdstat_" + command + ":calls=";
                if (line.startsWith(head)) {
                    calls += Long.parseLong(line.substring(head.length(), line.indexOf(',')));
                }
            }
        }
        return calls;
    }

    @Override
    public void close() throws IOException {
        if (process != null) {
            process.close();
        }
    }
}
