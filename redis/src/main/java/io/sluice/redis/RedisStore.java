package io.sluice.redis;

import io.sluice.core.config.ConfigException;
import io.sluice.core.policy.Outcome;
import io.sluice.core.store.Check;
import io.sluice.core.store.FleetChannel;
import io.sluice.core.store.Lease;
import io.sluice.core.store.SharedSettings;
import io.sluice.core.store.Store;
import io.sluice.core.store.StoreException;
import io.sluice.core.store.StoreProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * State in Redis: every rule of a request decided by one atomic Lua script (the skeleton {@code sluice.lua} joined with
 * each algorithm's Lua twin, see {@link ScriptAssembly}), in one round trip, all-or-nothing: {@code FCALL} of a function
 * on Redis 7 and later, {@code EVALSHA} on 6.2 and wherever functions are refused (see {@link RedisScript}).
 *
 * <p>Build one from a URL ({@code redis://[user:password@]host:port[/db]}, {@code rediss://} for TLS,
 * {@code redis-sentinel://s1,s2/master}, {@code redis-cluster://n1,n2}), from Sentinel (master name and sentinel
 * addresses), from Cluster seed nodes, or around a Jedis client the application owns:
 *
 * <pre>
 * RedisStore store = RedisStore.builder().url("redis://redis.internal:6379").timeout(Duration.ofMillis(50)).build();
 * </pre>
 *
 * <p><b>Keys</b> are {@code prefix:rule:key} (prefix {@value #DEFAULT_PREFIX} by default), the key part as
 * {@link ClientKeys} writes it: by default a keyed hash ({@link Builder#keySecret}), so Redis holds no client identifier
 * in clear; readable with {@link Builder#rawKeys(boolean)}. A rule part that is no {@link io.sluice.core.Rule} name is
 * hashed too, so that no two rule and key pairs share a Redis key. Every key written has a TTL: the time its state
 * stays meaningful, at least 1 ms.
 *
 * <p><b>Time</b>: by default the script reads Redis {@code TIME}, so nodes with skewed clocks agree; with
 * {@link Builder#applicationTime(boolean)} (or {@code ?time=application} on the URL) the application's time is passed
 * instead (managed Redis that refuses
 * {@code TIME} in scripts; tests that drive timelines); TTLs, which Redis counts on its own clock, then get 60 s of
 * slack for the skew between the two clocks.
 *
 * <p><b>Cluster</b>: see {@link SlotCalls}; with {@link Builder#hashTag(boolean)} every key carries the hash tag
 * {@code {prefix}}, so all of Sluice's keys share one slot and every request is all-or-nothing (at the price of putting
 * all limiter state on one master).
 *
 * <p><b>Shared settings</b> ({@link #settings()}): the rules document, per-key overrides and the audit trail that
 * {@link io.sluice.core.Operations} writes, in the keys {@code {prefix}:_settings:*}, one Cluster slot; see
 * {@link RedisSettings}.
 *
 * <p><b>Failures</b>: any Redis error or timeout is a {@link StoreException}; the engine's circuit breaker and each
 * rule's failure mode decide what happens then. Where a server lost the function or the script ({@code FUNCTION
 * FLUSH}, {@code SCRIPT FLUSH}, a restart without persistence) it is loaded again transparently.
 */
public final class RedisStore implements Store {

    /** Default key prefix: {@value}. */
    public static final String DEFAULT_PREFIX = "sluice";
    /** Default time budget of a Redis call (connect and read): 50 ms. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMillis(50);
    /** Default maximum number of pooled connections: {@value}. */
    public static final int DEFAULT_POOL_SIZE = 16;
    /** Longest key part kept as it is: {@value} characters. */
    public static final int MAX_RAW_KEY = 64;

    /** The time budget a coalesced request and the fleet's channel assume of an application's client (not read). */
    private static final Duration APPLICATION_CLIENT_BUDGET = Duration.ofSeconds(5);
    /** The calls to one node (or hash slot) in flight at once before requests wait to be sent together. */
    static final int COALESCED_IN_FLIGHT = 2;
    /** The most entries of a store's caches of encoded keys and policies. */
    static final int MAX_CACHED = 4096;

    private final ReconnectingClient client;
    private final String prefix;
    /** The fleet's channel, made by the first {@link #fleet()}; guarded by this. */
    private RedisFleetChannel fleet;
    private final RedisScript script;
    /** The rules document, overrides and audit trail the fleet shares. */
    private final RedisSettings settings;
    private final SlotCalls slots;
    private final RedisKeys keys;
    private final ScriptCodec codec;
    /** A Cluster without the hash tag: the checks of a request are sent in groups, one per hash slot. */
    private final boolean bySlot;
    /** Requests of one node or hash slot sent together while a call is in flight; null when off. */
    private final Coalescer coalescer;
    private final Duration timeout;
    /** The time budget of one call of the client: the store's timeout, or the one assumed of an application's. */
    private final Duration budget;
    private final int poolSize;

    RedisStore(Builder b, ReconnectingClient client) {
        this.client = client;
        this.script = new RedisScript(client);
        this.prefix = b.prefix;
        this.keys = new RedisKeys(b.prefix, b.hashTag,
                b.rawKeys ? ClientKeys.raw() : ClientKeys.hashed(b.keySecret, b.prefix));
        this.codec = new ScriptCodec(keys, b.applicationTime);
        this.settings = new RedisSettings(client, b.prefix, keys.clients());
        this.slots = new SlotCalls(script, keys, codec);
        this.bySlot = client.cluster() && !b.hashTag;
        this.budget = b.client != null ? APPLICATION_CLIENT_BUDGET : b.timeout;
        this.coalescer = b.coalesce ? new Coalescer(script, COALESCED_IN_FLIGHT, bySlot, budget,
                bySlot ? NodeLanes.of(client) : null) : null;
        this.timeout = b.timeout;
        this.poolSize = b.poolSize;
    }

    /** @return the time budget of the connections the store opens (not of an application's client) */
    Duration timeout() {
        return timeout;
    }

    /** @return the pool size of the connections the store opens (not of an application's client) */
    int poolSize() {
        return poolSize;
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public List<Outcome> evaluate(List<Check> checks, long nowMicros) {
        int n = checks.size();
        if (n == 0) {
            return List.of();
        }
        byte[] now = codec.now(nowMicros);
        byte[] requestId = codec.requestId(checks);
        if (!bySlot || n == 1) {
            // a Cluster's one key is encoded once, for its slot (its lane) and the call
            byte[][] one = bySlot ? new byte[][] {keys.bytes(checks.get(0).rule(), checks.get(0).key())} : null;
            if (coalescer == null) {
                return ScriptReplies.outcomes(script.run(n, codec.params(checks, null, one, now, requestId)), checks);
            }
            return coalescer.evaluate(one == null ? 0 : JedisClusterCRC16.getSlot(one[0]), checks,
                    () -> script.run(n, codec.params(checks, null, one, now, requestId)),
                    () -> codec.request(checks, one, now, requestId));
        }
        return slots.evaluate(checks, now, requestId);
    }

    /**
     * Decides several requests in one call of the script's batch mode, one after the other, as {@link Coalescer}
     * sends those that waited; for tests that hold the batch mode to the memory store. Not for a Cluster without the
     * hash tag (a batch never crosses slots).
     */
    List<List<Outcome>> evaluateTogether(List<List<Check>> requests, long[] nowMicros) {
        List<BatchRequest> encoded = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            List<Check> checks = requests.get(i);
            encoded.add(codec.request(checks, null, codec.now(nowMicros[i]), codec.requestId(checks)));
        }
        return Coalescer.together(script::run, encoded, requests);
    }

    /**
     * @return the batch calls this store made, the requests they carried and the batches across a Cluster node's
     *     slots sent again slot by slot (zeros without coalescing)
     */
    int[] coalesced() {
        return coalescer == null ? new int[3] : coalescer.counts();
    }

    @Override
    public void release(List<Lease> leases, long nowMicros) {
        if (leases.isEmpty()) {
            return;
        }
        slots.release(leases, nowMicros, bySlot);
    }

    @Override
    public void reset(String rule, String key) {
        try {
            client.get().del(key(rule, key));
        } catch (JedisException e) {
            throw new StoreException("Redis reset failed: " + e.getMessage(), e);
        }
    }

    /** @return the channel of penalties and resets among the nodes on this Redis ({@code prefix:fleet}), made once */
    @Override
    public synchronized FleetChannel fleet() {
        if (fleet == null) {
            fleet = new RedisFleetChannel(client, prefix, budget);
        }
        return fleet;
    }

    /**
     * @return the rules document, per-key overrides and audit trail every node on this Redis shares, in the keys
     *     {@code {prefix}:_settings:*} (one Cluster slot), keys held as this store's key names hold them
     */
    @Override
    public SharedSettings settings() {
        return settings;
    }

    /** @return true: every node that points at the same Redis shares its state, so rules may lease permits */
    @Override
    public boolean shared() {
        return true;
    }

    @Override
    public void close() {
        synchronized (this) {
            if (fleet != null) {
                fleet.close();
            }
        }
        client.close();
    }

    /**
     * @return the Redis key of a rule's key: {@code prefix:rule:key}, the key part hashed when long or unsafe, the rule
     *     part when it is no {@link io.sluice.core.Rule} name
     */
    public String key(String rule, String key) {
        return keys.key(rule, key);
    }

    @Override
    public String toString() {
        return client.description();
    }

    /**
     * Checks a Redis URL as {@link Builder#url} will read it, without connecting.
     *
     * @param parameter the name errors give (a parameter and where it came from, such as
     *     {@code SLUICE_STORE (environment variable)})
     * @throws ConfigException naming {@code parameter} and quoting the URL without its password
     */
    public static void checkUrl(String parameter, String url) {
        RedisUrl.parse(parameter, url);
    }

    /**
     * @return {@code url} without its password, for logs and messages: {@code redis://user:secret@host} gives
     *     {@code redis://user:***@host}, {@code redis://secret@host} gives {@code redis://***@host}. The user part
     *     ends at the last {@code @}, so a password holding {@code /}, {@code :} or {@code @} is hidden whole.
     */
    public static String redact(String url) {
        return StoreProvider.redactPassword(url);
    }

    /** Configures and opens a {@link RedisStore}. */
    public static final class Builder {
        // build() opens a copy of the builder (StoreOpening.copy): a field added here must be copied there too, or
        // it is lost
        String url;
        String sentinelMaster;
        Set<HostAndPort> sentinels;
        Set<HostAndPort> clusterNodes;
        UnifiedJedis client;
        String prefix = DEFAULT_PREFIX;
        boolean hashTag;
        boolean applicationTime;
        Duration timeout = DEFAULT_TIMEOUT;
        int poolSize = DEFAULT_POOL_SIZE;
        boolean coalesce = true;
        boolean coalesceSet;
        boolean rawKeys;
        boolean rawKeysSet;
        String keySecret;
        /** Whether {@link #timeout} and {@link #poolSize} were set: an application's client would ignore them. */
        boolean timeoutSet;
        boolean poolSizeSet;
        /** Whether {@link #prefix} and {@link #hashTag} were set: a URL that sets them otherwise fails. */
        boolean prefixSet;
        boolean hashTagSet;
        boolean applicationTimeSet;
        String user;
        String password;
        String sentinelUser;
        String sentinelPassword;
        boolean sentinelCredentialsSet;

        private Builder() {}

        /**
         * {@code redis://[user:password@]host:port[/db][?options]} or {@code rediss://...} for TLS,
         * {@code redis-sentinel://[user:password@]s1[:26379],s2.../master[?options]} (the credentials are the
         * master's) or {@code redis-cluster://[user:password@]n1[:6379],n2...[?options]}; options
         * {@code time=application|redis}, {@code timeout=200ms} ({@link #timeout}), {@code pool-size=32}
         * ({@link #poolSize}), {@code prefix=orders} ({@link #prefix}) and {@code hash-tag=true} ({@link #hashTag}),
         * joined by {@code &}, names in lower case. Sentinel or Cluster over TLS has no URL: give {@link #client} a
         * Jedis client configured for TLS. Errors in the URL name {@code url(...)}.
         */
        public Builder url(String url) {
            this.url = url;
            return this;
        }

        /** Redis Sentinel: the master's name and the sentinels' {@code host:port} addresses. */
        public Builder sentinel(String masterName, Set<String> sentinelAddresses) {
            if (masterName == null || masterName.isBlank()) {
                throw new ConfigException("sentinel master", masterName, "expected the name the sentinels know the"
                        + " master by, such as \"mymaster\"");
            }
            this.sentinelMaster = masterName;
            this.sentinels = RedisUrl.addresses("sentinels", sentinelAddresses);
            return this;
        }

        /** Redis Cluster: some of its nodes' {@code host:port} addresses. */
        public Builder cluster(Set<String> seedNodes) {
            this.clusterNodes = RedisUrl.addresses("cluster", seedNodes);
            return this;
        }

        /** A client the application owns (it stays open when the store closes). */
        public Builder client(UnifiedJedis jedis) {
            this.client = jedis;
            return this;
        }

        /**
         * Credentials for Sentinel or Cluster (a URL carries its own).
         *
         * @param user null for the default user
         */
        public Builder credentials(String user, String password) {
            checkCredentials("credentials", user, password);
            this.user = user;
            this.password = password;
            return this;
        }

        /**
         * Credentials for the sentinels themselves, when they require a password ({@code requirepass} in
         * {@code sentinel.conf}); {@link #credentials} are the master's. Sentinel only.
         *
         * @param user null for the default user
         */
        public Builder sentinelCredentials(String user, String password) {
            checkCredentials("sentinelCredentials", user, password);
            this.sentinelUser = user;
            this.sentinelPassword = password;
            this.sentinelCredentialsSet = true;
            return this;
        }

        private static void checkCredentials(String parameter, String user, String password) {
            if (user != null && (user.isBlank() || password == null)) {
                // Jedis sends no AUTH without a password, and AUTH "" secret fails on every connection
                throw new ConfigException(parameter, user, user.isBlank()
                        ? "expected a user name, or null for the default user" : "expected a password for the user");
            }
        }

        /** Key prefix, so that one Redis serves many applications (default {@value #DEFAULT_PREFIX}). */
        public Builder prefix(String p) {
            if (p == null || !RedisKeys.PREFIX.matcher(p).matches()) {
                throw new ConfigException("prefix(...)", p, "expected 1 to 32 letters, digits, '.', '_' or '-', such"
                        + " as prefix(\"orders\")");
            }
            this.prefix = p;
            this.prefixSet = true;
            return this;
        }

        /** Cluster: put every key in one hash slot ({@code {prefix}}), so every request is all-or-nothing. */
        public Builder hashTag(boolean on) {
            this.hashTag = on;
            this.hashTagSet = true;
            return this;
        }

        /** Pass the application's time instead of reading Redis {@code TIME} (default: Redis time). */
        public Builder applicationTime(boolean on) {
            this.applicationTime = on;
            this.applicationTimeSet = true;
            return this;
        }

        /** Time budget of one Redis call: connect and read timeouts, and the wait for a pooled connection. */
        public Builder timeout(Duration t) {
            // compared as durations: toMillis() would overflow on a huge one, and round one under 1 ms down to 0,
            // which Jedis takes as no timeout at all
            if (t == null || t.compareTo(Duration.ofMillis(1)) < 0 || t.compareTo(Duration.ofSeconds(60)) > 0) {
                throw new ConfigException("timeout(...)", String.valueOf(t), "expected a duration between 1 ms and"
                        + " 60 s, such as timeout(Duration.ofMillis(200))");
            }
            this.timeout = t;
            this.timeoutSet = true;
            return this;
        }

        /** Maximum pooled connections (default {@value #DEFAULT_POOL_SIZE}). */
        public Builder poolSize(int size) {
            if (size < 1 || size > 10_000) {
                throw new ConfigException("poolSize(...)", Integer.toString(size), "expected a whole number of"
                        + " connections between 1 and 10000, such as poolSize(32)");
            }
            this.poolSize = size;
            this.poolSizeSet = true;
            return this;
        }

        /**
         * Whether requests that arrive while calls to the same Redis node are in flight are sent together, in one
         * script call that decides them one after the other, each all-or-nothing (default: on). A request that finds
         * the node idle goes out at once. Off: one call per request, as many in flight as the pool allows.
         */
        public Builder coalesce(boolean on) {
            this.coalesce = on;
            this.coalesceSet = true;
            return this;
        }

        /**
         * Keep the client part of keys readable in Redis, for debugging: a key of at most {@value #MAX_RAW_KEY} safe
         * characters as it is, any other as its SHA-256 (default: off, every key part a keyed hash). Every node of a
         * fleet must agree, or they count in different keys.
         */
        public Builder rawKeys(boolean on) {
            this.rawKeys = on;
            this.rawKeysSet = true;
            return this;
        }

        /**
         * The secret of the keyed hash that key parts are written as (HMAC-SHA-256), at least
         * {@value ClientKeys#MIN_SECRET} characters, the same on every node and kept out of Redis. Without it: system
         * property {@code sluice.key-secret}, else environment variable {@code SLUICE_KEY_SECRET}, else a secret
         * derived from the prefix (pseudonymous keys only: see docs/redis.md).
         */
        public Builder keySecret(String secret) {
            this.keySecret = ClientKeys.checked("keySecret(...)", secret);
            return this;
        }

        /** Builds from a copy: the URL's options never become the builder's, so building twice gives the same store. */
        public RedisStore build() {
            return StoreOpening.open(StoreOpening.copy(this));
        }
    }
}
