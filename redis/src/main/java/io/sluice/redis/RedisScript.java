package io.sluice.redis;

import io.sluice.core.algorithm.Algorithms;
import io.sluice.core.store.StoreException;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * The script on the servers, {@code sluice.lua} with every algorithm's fragment ({@link ScriptAssembly}): called by
 * its SHA ({@code EVALSHA}), loaded again where a server lost it
 * ({@code NOSCRIPT}), called once more on a pooled connection a restarted Redis closed, and in a Cluster sent to the
 * masters of each group's hash slot in one pipeline. Any failure is a {@link StoreException}.
 */
final class RedisScript {

    private static final String SCRIPT = ScriptAssembly.assemble(skeleton(), Algorithms.all());
    private static final byte[] SCRIPT_BYTES = SCRIPT.getBytes(StandardCharsets.UTF_8);
    private static final byte[] SHA_BYTES = sha1(SCRIPT).getBytes(StandardCharsets.US_ASCII);

    private final ReconnectingClient client;

    RedisScript(ReconnectingClient client) {
        this.client = client;
    }

    /**
     * One script call with encoded arguments, the first {@code keys} of them keys; after SCRIPT FLUSH or a restart the
     * script is sent in full (which caches it again).
     */
    Object run(int keys, byte[][] params) {
        UnifiedJedis redis = client.get();
        try {
            try {
                return call(redis, keys, params);
            } catch (JedisConnectionException stale) {
                requireNotRun(stale);
                return call(redis, keys, params);   // a pooled connection that a restarted Redis closed: once more, anew
            }
        } catch (JedisException | ClassCastException e) {
            client.dropIfReadOnly(e, redis);
            throw new StoreException("Redis call failed (" + client.description() + "): " + e.getMessage(), e);
        }
    }

    /**
     * Cluster: one script call per hash-slot group, all sent in one pipeline to their masters.
     *
     * @param groups the indexes of the checks of each group: their number is the call's number of keys
     * @param params each group's arguments
     */
    List<Object> pipelined(List<List<Integer>> groups, List<byte[][]> params) {
        List<Object> replies = new ArrayList<>(groups.size());
        UnifiedJedis redis = client.get();
        try {
            List<Response<Object>> responses = new ArrayList<>(groups.size());
            try (AbstractPipeline pipeline = redis.pipelined()) {
                for (int g = 0; g < groups.size(); g++) {
                    responses.add(pipeline.evalsha(SHA_BYTES, groups.get(g).size(), params.get(g)));
                }
                pipeline.sync();
            }
            for (int g = 0; g < responses.size(); g++) {
                try {
                    replies.add(responses.get(g).get());
                } catch (JedisNoScriptException e) {
                    // a node that lost the script
                    replies.add(reload(redis, groups.get(g).size(), params.get(g)));
                }
            }
            return replies;
        } catch (JedisException | ClassCastException e) {
            client.dropIfReadOnly(e, redis);
            throw new StoreException("Redis call failed (" + client.description() + "): " + e.getMessage(), e);
        }
    }

    /**
     * A call that timed out waiting for its reply may still run on the server (the script was sent; Redis was only
     * slow): sending it again would count the request twice, and would spend the time budget twice. Only a connection
     * that failed otherwise (a pooled connection a restarted Redis closed) is retried.
     */
    private static void requireNotRun(JedisConnectionException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SocketTimeoutException) {
                throw e;
            }
        }
    }

    private static Object call(UnifiedJedis redis, int keys, byte[][] params) {
        try {
            return redis.evalsha(SHA_BYTES, keys, params);
        } catch (JedisNoScriptException e) {
            return reload(redis, keys, params);
        }
    }

    /**
     * The script is not in the server's cache (a restart, {@code SCRIPT FLUSH}, a failover to a node that never had it):
     * loads it with {@code SCRIPT LOAD}, on the node of the call's first key, and calls it again. A script loaded so
     * stays until the cache is flushed; one that {@code EVAL} brought in is evicted after 500 others on Redis 7.4 and
     * later, which on a shared Redis would send the whole script again and again. The call did not run: NOSCRIPT is
     * answered before the script starts.
     */
    private static Object reload(UnifiedJedis redis, int keys, byte[][] params) {
        redis.scriptLoad(SCRIPT_BYTES, params[0]);
        return redis.evalsha(SHA_BYTES, keys, params);
    }

    /** @return the script Redis runs: the skeleton with every registered algorithm's fragment (tests call it by hand) */
    static String text() {
        return SCRIPT;
    }

    private static String skeleton() {
        try (InputStream in = RedisScript.class.getResourceAsStream("sluice.lua")) {
            if (in == null) {
                throw new IllegalStateException("sluice.lua is missing from the sluice-redis jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read sluice.lua", e);
        }
    }

    private static String sha1(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is part of every Java platform", e);
        }
    }
}
