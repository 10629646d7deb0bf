package io.sluice.redis;

import io.sluice.core.store.StoreException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * How the script on the servers is called ({@link ScriptLibrary}: {@code sluice.lua} with every algorithm's fragment).
 * On Redis 7 and later it is a function, {@code sluice_<SHA-1 of its code, 16 hex digits>} in a library of that name
 * ({@link ScriptLibrary#library()}), called with {@code FCALL} and loaded with {@code FUNCTION LOAD} where a server
 * answers that it has no such function: functions are kept in the RDB and AOF files and replicated, so a restart with
 * persistence or a failover needs no reload, and {@code SCRIPT FLUSH} does not touch them. Where {@code FCALL} is
 * refused (Redis 6.2, whose answer is an unknown command; a user whose ACL denies it; a server that cannot load the
 * library) the script is called by its SHA ({@code EVALSHA}), with a fast mode's arguments as the script reads them
 * ({@link ScriptCodec#forScript}), and loaded again where a server lost it ({@code NOSCRIPT}). The refusal is
 * remembered for the client that met it: one round trip per call either way, once the server has what it needs. Either
 * is called once more on a pooled connection a restarted Redis closed, and in a Cluster sent to the masters of each
 * group's hash slot in one pipeline. Any failure is a {@link StoreException}.
 */
final class RedisScript implements Coalescer.Call {

    /** The store's logger: the name applications configure. */
    private static final System.Logger LOG = System.getLogger(RedisStore.class.getName());

    private static final byte[] NO_KEYS = {'0'};
    private static final byte[] LOAD = "LOAD".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] REPLACE = "REPLACE".getBytes(StandardCharsets.US_ASCII);

    private final ReconnectingClient client;
    /**
     * The client whose server refused {@code FCALL} or {@code FUNCTION LOAD}: its calls use {@code EVALSHA}. A client
     * that replaces it (after {@code READONLY}: maybe another server behind the same name) tries functions again.
     */
    private volatile UnifiedJedis evalshaOnly;

    RedisScript(ReconnectingClient client) {
        this.client = client;
    }

    /**
     * One script call with encoded arguments, the first {@code keys} of them keys; where the server lost the function
     * or the script (a restart without persistence, {@code FUNCTION FLUSH}, {@code SCRIPT FLUSH}) it is loaded again.
     */
    @Override
    public Object run(int keys, byte[][] params) {
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
            boolean function = redis != evalshaOnly;
            List<Response<Object>> responses = new ArrayList<>(groups.size());
            try (AbstractPipeline pipeline = redis.pipelined()) {
                for (int g = 0; g < groups.size(); g++) {
                    int keys = groups.get(g).size();
                    byte[][] p = params.get(g);
                    responses.add(function ? pipeline.fcall(ScriptLibrary.FUNCTION_BYTES, keys(keys, p), args(keys, p))
                            : pipeline.evalsha(ScriptLibrary.SHA_BYTES, keys, ScriptCodec.forScript(keys, p)));
                }
                pipeline.sync();
            }
            for (int g = 0; g < responses.size(); g++) {
                try {
                    replies.add(responses.get(g).get());
                } catch (JedisDataException e) {
                    // a node that lost the function or the script, or refused functions
                    replies.add(recover(redis, e, function, groups.get(g).size(), params.get(g)));
                }
            }
            return replies;
        } catch (JedisException | ClassCastException e) {
            client.dropIfReadOnly(e, redis);
            throw new StoreException("Redis call failed (" + client.description() + "): " + e.getMessage(), e);
        }
    }

    /**
     * Cluster: a fast batch whose keys live in several hash slots of one node, in one call of {@code sluice_<hex>_n}
     * sent to the node of its first key ({@link #ACROSS_CODE}).
     *
     * @throws Misrouted where nothing ran and the batch is to be sent slot by slot: a key the node does not serve (a
     *     slot that moved or is moving), or functions refused ({@code EVALSHA} from now on)
     */
    @Override
    public Object across(int keys, byte[][] params) {
        UnifiedJedis redis = client.get();
        if (redis == evalshaOnly) {
            throw new Misrouted("functions refused");
        }
        byte[][] args = new byte[params.length + 3][];
        args[0] = ScriptLibrary.ACROSS_BYTES;
        args[1] = NO_KEYS;
        args[2] = Protocol.toByteArray(keys);
        System.arraycopy(params, 0, args, 3, params.length);
        try {
            try {
                return fcallAcross(redis, args);
            } catch (JedisConnectionException stale) {
                requireNotRun(stale);
                throw new Misrouted(stale.getMessage());    // not sent: once more, slot by slot
            } catch (JedisDataException e) {
                if (!notFound(e)) {
                    throw e;
                }
            }
            JedisDataException refused = loadLibrary(redis, params[0]);
            if (refused != null) {
                refused(refused, redis);
                throw new Misrouted("functions refused");
            }
            return fcallAcross(redis, args);
        } catch (JedisException | ClassCastException e) {
            client.dropIfReadOnly(e, redis);
            throw new StoreException("Redis call failed (" + client.description() + "): " + e.getMessage(), e);
        }
    }

    /** @throws Misrouted where the node does not serve a key, or refused {@code FCALL} (then marked so) */
    private Object fcallAcross(UnifiedJedis redis, byte[][] args) {
        try {
            return redis.sendCommand(args[3], Protocol.Command.FCALL, args);
        } catch (JedisDataException e) {
            if (refusedCall(e)) {
                refused(e, redis);
                throw new Misrouted("functions refused");
            }
            if (notLocal(e)) {
                throw new Misrouted(e.getMessage());
            }
            throw e;
        }
    }

    /** @return whether the node answered that it does not serve one of the keys, now: nothing ran or was written */
    private static boolean notLocal(JedisDataException e) {
        String m = String.valueOf(e.getMessage());
        return m.contains("non local key") || m.startsWith("MOVED") || m.startsWith("ASK") || m.startsWith("TRYAGAIN")
                || m.startsWith("CROSSSLOT") || m.startsWith("CLUSTERDOWN");
    }

    /** @return whether {@link #across} may be called: functions are not refused on the current client */
    @Override
    public boolean acrossSlots() {
        return client.get() != evalshaOnly;
    }

    /** A batch across slots that did not run: sent again slot by slot ({@link Coalescer}). */
    static final class Misrouted extends RuntimeException {
        Misrouted(String message) {
            super(message, null, false, false);
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

    private Object call(UnifiedJedis redis, int keys, byte[][] params) {
        boolean function = redis != evalshaOnly;
        try {
            return function ? redis.fcall(ScriptLibrary.FUNCTION_BYTES, keys(keys, params), args(keys, params))
                    : redis.evalsha(ScriptLibrary.SHA_BYTES, keys, ScriptCodec.forScript(keys, params));
        } catch (JedisDataException e) {
            return recover(redis, e, function, keys, params);
        }
    }

    /**
     * An error reply that Redis gives before the script starts, so that the call can be made again: {@code NOSCRIPT}
     * (loaded with {@code SCRIPT LOAD}, then {@code EVALSHA} again), {@code ERR Function not found} ({@code FUNCTION
     * LOAD}, then {@code FCALL} again), or {@code FCALL} or {@code FUNCTION LOAD} refused ({@code EVALSHA} from now
     * on, on this client). The load goes to the node of the call's first key. Any other error is thrown: the script
     * may have run.
     *
     * @param function whether the call that failed was an {@code FCALL}
     */
    private Object recover(UnifiedJedis redis, JedisDataException e, boolean function, int keys, byte[][] params) {
        if (!function) {
            if (!(e instanceof JedisNoScriptException)) {
                throw e;
            }
            return reload(redis, keys, params);
        }
        if (refusedCall(e)) {
            return evalshaFromNowOn(redis, e, keys, params);
        }
        if (!notFound(e)) {
            throw e;
        }
        JedisDataException refused = loadLibrary(redis, params[0]);
        if (refused != null) {
            return evalshaFromNowOn(redis, refused, keys, params);
        }
        return redis.fcall(ScriptLibrary.FUNCTION_BYTES, keys(keys, params), args(keys, params));
    }

    /**
     * Loads the library ({@code FUNCTION LOAD REPLACE}) on the node of {@code key}.
     *
     * @return null when it is loaded; the server's answer when it refuses functions for good (an ACL, a proxy)
     * @throws JedisDataException a state that passes (READONLY, OOM, LOADING, BUSY...), not a refusal
     */
    private static JedisDataException loadLibrary(UnifiedJedis redis, byte[] key) {
        try {
            redis.sendCommand(key, Protocol.Command.FUNCTION, LOAD, REPLACE, ScriptLibrary.LIBRARY_BYTES);
            return null;
        } catch (JedisDataException refused) {
            if (!refusedLoad(refused)) {
                throw refused;
            }
            return refused;
        }
    }

    /**
     * Functions refused: this client calls the script with {@code EVALSHA} from now on. Logged once: as information
     * where the server has no functions (Redis 6.2), as a warning where it has them but refused them here (an ACL, a
     * library it cannot load).
     */
    private Object evalshaFromNowOn(UnifiedJedis redis, JedisDataException refused, int keys, byte[][] params) {
        refused(refused, redis);
        try {
            return redis.evalsha(ScriptLibrary.SHA_BYTES, keys, ScriptCodec.forScript(keys, params));
        } catch (JedisNoScriptException e) {
            return reload(redis, keys, params);
        }
    }

    private void refused(JedisDataException refused, UnifiedJedis redis) {
        if (evalshaOnly != redis) {
            evalshaOnly = redis;
            String message = String.valueOf(refused.getMessage());
            int args = message.indexOf(", with args beginning with");
            if (args >= 0) {
                message = message.substring(0, args);       // not the call's keys and arguments
            }
            LOG.log(message.startsWith("ERR unknown command") ? System.Logger.Level.INFO : System.Logger.Level.WARNING,
                    "Redis refused functions (" + client.description() + ": " + message
                    + "): the script is called with EVALSHA");
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
        redis.scriptLoad(ScriptLibrary.SCRIPT_BYTES, params[0]);
        return redis.evalsha(ScriptLibrary.SHA_BYTES, keys, ScriptCodec.forScript(keys, params));
    }

    /** {@code ERR Function not found}: answered before anything runs (Redis 7.0 to 7.4, Valkey). */
    private static boolean notFound(JedisDataException e) {
        String message = e.getMessage();
        return message != null && message.startsWith("ERR Function not found");
    }

    /**
     * @return whether Redis refused {@code FCALL} itself, before running anything: an unknown command (Redis 6.2:
     *     {@code ERR unknown command `FCALL`}; a renamed one) or an ACL that denies it ({@code NOPERM ... 'fcall'}).
     *     An error of a command the script calls names that command (and the function, {@code sluice_<hex>}), never
     *     {@code fcall}: after such an error the script may have written, and is not called again.
     */
    private static boolean refusedCall(JedisDataException e) {
        String message = e.getMessage();
        if (message == null) {
            return false;
        }
        String m = message.toLowerCase(Locale.ROOT);
        return (m.startsWith("err unknown command") || m.startsWith("noperm")) && m.contains("fcall");
    }

    /**
     * @return whether a server refused to load the library: {@code ERR} (an unknown command or subcommand, a library
     *     it cannot compile) or {@code NOPERM} (an ACL without {@code FUNCTION LOAD}). Nothing ran, and a server that
     *     cannot load it now will not later; {@code READONLY}, {@code OOM}, {@code LOADING}, {@code BUSY} and the
     *     like are states that pass, answered as any failed call.
     */
    private static boolean refusedLoad(JedisDataException e) {
        String message = e.getMessage();
        return message != null && (message.startsWith("ERR") || message.startsWith("NOPERM"));
    }

    /** The first {@code keys} of {@code params}, and the rest: views, no copy. */
    private static List<byte[]> keys(int keys, byte[][] params) {
        return Arrays.asList(params).subList(0, keys);
    }

    private static List<byte[]> args(int keys, byte[][] params) {
        return Arrays.asList(params).subList(keys, params.length);
    }
}
