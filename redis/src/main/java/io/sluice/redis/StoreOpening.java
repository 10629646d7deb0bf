package io.sluice.redis;

import io.sluice.core.config.ConfigException;
import io.sluice.redis.RedisClients.Login;
import io.sluice.redis.RedisStore.Builder;
import java.time.Duration;
import java.util.Set;
import redis.clients.jedis.HostAndPort;

/**
 * Opens the {@link RedisStore} a {@link Builder} describes: checks that it names exactly one source of connections
 * and no setting that does not apply to it, takes a URL's options (failing on one the builder set otherwise), and
 * builds the clients.
 */
final class StoreOpening {

    private StoreOpening() {}

    /**
     * @return a builder with every field of {@code from}, which {@code build()} opens so that a URL's options never
     *     become the caller's builder's ({@code RedisUrlTest} checks that no field is left out)
     */
    static Builder copy(Builder from) {
        Builder b = RedisStore.builder();
        b.url = from.url;
        b.sentinelMaster = from.sentinelMaster;
        b.sentinels = from.sentinels;
        b.clusterNodes = from.clusterNodes;
        b.client = from.client;
        b.prefix = from.prefix;
        b.hashTag = from.hashTag;
        b.applicationTime = from.applicationTime;
        b.timeout = from.timeout;
        b.poolSize = from.poolSize;
        b.coalesce = from.coalesce;
        b.coalesceSet = from.coalesceSet;
        b.rawKeys = from.rawKeys;
        b.rawKeysSet = from.rawKeysSet;
        b.keySecret = from.keySecret;
        b.timeoutSet = from.timeoutSet;
        b.poolSizeSet = from.poolSizeSet;
        b.prefixSet = from.prefixSet;
        b.hashTagSet = from.hashTagSet;
        b.applicationTimeSet = from.applicationTimeSet;
        b.user = from.user;
        b.password = from.password;
        b.sentinelUser = from.sentinelUser;
        b.sentinelPassword = from.sentinelPassword;
        b.sentinelCredentialsSet = from.sentinelCredentialsSet;
        return b;
    }

    static RedisStore open(Builder b) {
        checkSources(b);
        if (b.client != null) {
            return new RedisStore(b, ReconnectingClient.of(b.client));
        }
        RedisUrl target = b.url == null ? null : RedisUrl.parse(b.url);
        if (target != null) {
            applyUrlSettings(b, target);
        }
        String master = target == null ? b.sentinelMaster : target.master();
        Set<HostAndPort> nodes = target == null ? (master != null ? b.sentinels : b.clusterNodes)
                : target.standalone() ? null : RedisUrl.addresses(RedisUrl.URL_METHOD, target.nodes());
        if (b.sentinelCredentialsSet && master == null) {
            throw new ConfigException("sentinelCredentials are for the sentinels of sentinel(...) or a"
                    + " redis-sentinel:// URL: with a standalone URL, Cluster or an application's client there are"
                    + " none");
        }
        RedisClients clients = new RedisClients(b.timeout, b.poolSize);
        if (target != null && target.standalone()) {
            return new RedisStore(b, clients.standalone(target));
        }
        Login login = target == null ? new Login(b.user, b.password) : new Login(target.user(), target.password());
        if (master != null) {
            Login sentinelLogin = b.sentinelCredentialsSet ? new Login(b.sentinelUser, b.sentinelPassword) : null;
            return new RedisStore(b, clients.sentinel(master, nodes, login, sentinelLogin, target));
        }
        return new RedisStore(b, clients.cluster(nodes, login, target));
    }

    /** Exactly one source of connections, and no setting that does not apply to it. */
    private static void checkSources(Builder b) {
        int sources = (b.url != null ? 1 : 0) + (b.sentinelMaster != null ? 1 : 0) + (b.clusterNodes != null ? 1 : 0)
                + (b.client != null ? 1 : 0);
        if (sources != 1) {
            throw new ConfigException("expected exactly one of a Redis URL, Sentinel, Cluster or a client for the"
                    + " Redis store, got " + sources);
        }
        if ((b.user != null || b.password != null) && (b.url != null || b.client != null)) {
            throw new ConfigException("credentials are for Sentinel or Cluster: a Redis URL carries its own"
                    + " (redis://user:secret@host:6379), and an application's client is configured already");
        }
        if (b.client != null && b.sentinelCredentialsSet) {
            throw new ConfigException("sentinelCredentials are for the sentinels of sentinel(...) or a"
                    + " redis-sentinel:// URL: an application's client is configured already");
        }
        if (b.client != null && b.timeoutSet) {
            throw new ConfigException("timeout(...)", b.timeout.toString(), "applies to the connections the store"
                    + " opens, not to an application's client(...), which has timeouts of its own (set on the client,"
                    + " such as DefaultJedisClientConfig.builder().socketTimeoutMillis(200)); expected no timeout(...)"
                    + " with client(...)");
        }
        if (b.client != null && b.poolSizeSet) {
            throw new ConfigException("poolSize(...)", Integer.toString(b.poolSize), "applies to the connections the"
                    + " store opens, not to an application's client(...), which has a pool of its own (set on the"
                    + " client, such as a ConnectionPoolConfig with setMaxTotal(32)); expected no poolSize(...) with"
                    + " client(...)");
        }
    }

    /** Takes the URL's options; an option the builder also set, to another value, fails. */
    private static void applyUrlSettings(Builder b, RedisUrl target) {
        UrlOptions o = target.options();
        if (o.timeout() != null) {
            if (b.timeoutSet && !b.timeout.equals(o.timeout())) {
                throw conflict(target, "timeout=" + o.timeout().toMillis() + "ms", "timeout(" + shown(b.timeout) + ")");
            }
            b.timeout = o.timeout();
        }
        if (o.poolSize() != 0) {
            if (b.poolSizeSet && b.poolSize != o.poolSize()) {
                throw conflict(target, "pool-size=" + o.poolSize(), "poolSize(" + b.poolSize + ")");
            }
            b.poolSize = o.poolSize();
        }
        if (o.prefix() != null) {
            if (b.prefixSet && !b.prefix.equals(o.prefix())) {
                throw conflict(target, "prefix=" + o.prefix(), "prefix(\"" + b.prefix + "\")");
            }
            b.prefix = o.prefix();
        }
        applyFlags(b, o, target);
        if (b.applicationTime && o.redisTime()) {
            throw conflict(target, "time=redis", "applicationTime(true)");
        }
        if (b.applicationTimeSet && !b.applicationTime && o.applicationTime()) {
            throw conflict(target, "time=application", "applicationTime(false)");
        }
        b.applicationTime |= o.applicationTime();
    }

    /** Takes the URL's on/off options: coalescing, raw keys, the hash tag. */
    private static void applyFlags(Builder b, UrlOptions o, RedisUrl target) {
        if (o.coalesce() != null) {
            if (b.coalesceSet && b.coalesce != o.coalesce()) {
                throw conflict(target, "coalesce=" + o.coalesce(), "coalesce(" + b.coalesce + ")");
            }
            b.coalesce = o.coalesce();
        }
        if (o.rawKeys() != null) {
            if (b.rawKeysSet && b.rawKeys != o.rawKeys()) {
                throw conflict(target, "raw-keys=" + o.rawKeys(), "rawKeys(" + b.rawKeys + ")");
            }
            b.rawKeys = o.rawKeys();
        }
        if (o.hashTag() != null) {
            if (b.hashTagSet && b.hashTag != o.hashTag()) {
                throw conflict(target, "hash-tag=" + o.hashTag(), "hashTag(" + b.hashTag + ")");
            }
            b.hashTag = o.hashTag();
        }
    }

    /**
     * @param option the URL's option, as {@code name=value}
     * @param method the builder's call that set it otherwise, such as {@code timeout(1000 ms)}
     */
    private static ConfigException conflict(RedisUrl target, String option, String method) {
        return new ConfigException(RedisUrl.URL_METHOD, target.toString(), "option \"" + option + "\" conflicts"
                + " with " + method + " on the same builder; expected the setting in one of them (or the same"
                + " value in both)");
    }

    /** @return {@code d} as a builder's timeout shows in messages: {@code 1000 ms}, or {@code PT0.0015S} */
    private static String shown(Duration d) {
        return d.toNanos() % 1_000_000 == 0 ? d.toMillis() + " ms" : d.toString();
    }
}
