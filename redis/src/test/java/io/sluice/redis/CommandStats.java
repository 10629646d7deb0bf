package io.sluice.redis;

import java.net.URI;
import java.util.Map;
import java.util.TreeMap;
import redis.clients.jedis.Jedis;

/**
 * What a server counted in {@code INFO commandstats} of its scripting commands: the calls and failed calls of each,
 * named as Redis names them ({@code evalsha}, {@code fcall}, {@code function|load} on Redis 7, {@code script} for any
 * SCRIPT subcommand on 6.2). The others are left out: those a script calls (Redis 7 counts them too) and those of a
 * new connection ({@code HELLO}, {@code CLIENT SETNAME}).
 */
record CommandStats(Map<String, Long> calls, Map<String, Long> failed) {

    /** @return the server's counts since it started or since {@link #reset} */
    static CommandStats of(String url) {
        try (Jedis jedis = new Jedis(URI.create(url))) {
            return of(jedis);
        }
    }

    static CommandStats of(Jedis jedis) {
        Map<String, Long> calls = new TreeMap<>();
        Map<String, Long> failed = new TreeMap<>();
        for (String line : jedis.info("commandstats").split("\r?\n")) {
            if (!line.startsWith("cmdstat_")) {
                continue;
            }
            String name = line.substring("cmdstat_".length(), line.indexOf(':'));
            if (!name.startsWith("eval") && !name.startsWith("fcall") && !name.startsWith("function")
                    && !name.startsWith("script")) {
                continue;
            }
            for (String field : line.substring(line.indexOf(':') + 1).split(",")) {
                String[] kv = field.split("=");
                if (kv[0].equals("calls")) {
                    calls.put(name, Long.parseLong(kv[1]));
                } else if (kv[0].equals("failed_calls")) {
                    failed.put(name, Long.parseLong(kv[1]));
                }
            }
        }
        return new CommandStats(calls, failed);
    }

    /** {@code CONFIG RESETSTAT}: the counts start again from nothing. */
    static void reset(String url) {
        try (Jedis jedis = new Jedis(URI.create(url))) {
            jedis.configResetStat();
        }
    }

    /** @return the calls of {@code command}, 0 when it was not called */
    long calls(String command) {
        return calls.getOrDefault(command, 0L);
    }

    /** @return the script calls: {@code FCALL} and {@code EVALSHA} */
    long scriptCalls() {
        return calls("fcall") + calls("evalsha");
    }
}
