package io.sluice.redis;

import java.util.List;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * One of the {@link AdmissionQueue}'s small scripts: called by its SHA ({@code EVALSHA}), sent whole ({@code EVAL},
 * which caches it) where the server does not have it. Its keys share one hash slot, so a Cluster client sends it to the
 * slot's master.
 */
final class QueueScript {

    private final String text;
    private final String sha;

    QueueScript(String text) {
        this.text = text;
        this.sha = ScriptLibrary.sha1(text);
    }

    Object run(UnifiedJedis redis, List<String> keys, List<String> args) {
        try {
            return redis.evalsha(sha, keys, args);
        } catch (JedisNoScriptException e) {
            return redis.eval(text, keys, args);    // NOSCRIPT is answered before anything runs
        }
    }
}
