package io.sluice.redis;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Outcome;
import io.sluice.core.policy.Policy;
import io.sluice.core.algorithm.Algorithms;
import io.sluice.core.config.ConfigException;
import io.sluice.core.policy.PolicyParser;
import io.sluice.core.store.Check;
import io.sluice.core.store.Lease;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.store.Store;
import io.sluice.core.store.StoreException;
import io.sluice.core.store.StoreProvider;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * State in Redis: every rule of a request decided by one atomic Lua script ({@code sluice.lua}, the twin of every
 * algorithm of this library), in one {@code EVALSHA} round trip, all-or-nothing.
 *
 * <p>Build one from a URL ({@code redis://[user:password@]host:port[/db]}, {@code rediss://} for TLS,
 * {@code redis-sentinel://s1,s2/master}, {@code redis-cluster://n1,n2}), from Sentinel (master name and sentinel
 * addresses), from Cluster seed nodes, or around a Jedis client the application owns:
 *
 * <pre>
 * RedisStore store = RedisStore.builder().url("redis://redis.internal:6379").timeout(Duration.ofMillis(50)).build();
 * </pre>
 *
 * <p><b>Keys</b> are {@code prefix:rule:key} (prefix {@value #DEFAULT_PREFIX} by default); a key part longer than
 * {@value #MAX_RAW_KEY} characters or with characters outside {@code [A-Za-z0-9._:@+/#-]} is replaced by {@code #} and
 * 22 characters of its SHA-256 (base64url), so hostile keys cannot bloat Redis; so is a rule part that is no
 * {@link io.sluice.core.Rule} name (a programmatic limit's name with {@code :}, say), so that no two rule and key pairs
 * share a Redis key. Every key written has a TTL: the time its state stays meaningful, at least 1 ms.
 *
 * <p><b>Time</b>: by default the script reads Redis {@code TIME}, so nodes with skewed clocks agree; with
 * {@link Builder#applicationTime(boolean)} (or {@code ?time=application} on the URL) the application's time is passed
 * instead (managed Redis that refuses
 * {@code TIME} in scripts; tests that drive timelines); TTLs, which Redis counts on its own clock, then get 60 s of
 * slack for the skew between the two clocks.
 *
 * <p><b>Cluster</b>: the checks of a request are grouped by hash slot, one script call per group, the groups sent
 * together in one pipeline; each group is
 * all-or-nothing, but across groups a denial in one does not undo another's consumption. With
 * {@link Builder#hashTag(boolean)} every key carries the hash tag {@code {prefix}}, so all of Sluice's keys share one
 * slot and every request is all-or-nothing (at the price of putting all limiter state on one master).
 *
 * <p><b>Failures</b>: any Redis error or timeout is a {@link StoreException}; the engine's circuit breaker and each
 * rule's failure mode decide what happens then. After {@code SCRIPT FLUSH} or a restart the script is sent again
 * transparently.
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

    private static final boolean[] SAFE_CHARS = new boolean[128];
    private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9._-]{1,32}");
    /** A {@link io.sluice.core.Rule}'s name, kept as it is in keys: no {@code :}, never starting with {@code #}. */
    private static final Pattern RULE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
    private static final String SCRIPT = loadScript();
    private static final String SHA = sha1(SCRIPT);
    private static final byte[] SCRIPT_BYTES = SCRIPT.getBytes(StandardCharsets.UTF_8);
    private static final byte[] SHA_BYTES = SHA.getBytes(StandardCharsets.US_ASCII);
    private static final byte[] EVALUATE = {'e'};
    private static final byte[] EVALUATE_ALL = {'E'};
    /** The mode of a request of one enforced GCRA check of cost 1, the most common: the script's shortest path. */
    private static final byte[] ONE_GCRA = {'g'};
    /** The algorithms the script runs inline; the others need its library (mode 'E'). */
    private static final Set<Algorithm> INLINE = EnumSet.of(Algorithm.GCRA, Algorithm.TOKEN_BUCKET,
            Algorithm.FIXED_WINDOW, Algorithm.LEAKY_BUCKET);
    private static final byte[] EMPTY = {};
    private static final byte[][] NUMBERS = new byte[1024][];
    private static final int MAX_CACHED = 4096;
    /** Encoded policies, bounded: a process that sees ever new policies (per-tenant tiers, reloads) keeps the recent ones. */
    private static final Cache<Policy, byte[][]> SPECS = Caffeine.newBuilder().maximumSize(MAX_CACHED)
            .executor(Runnable::run).build();

    static {
        for (int i = 0; i < NUMBERS.length; i++) {
            NUMBERS[i] = Integer.toString(i).getBytes(StandardCharsets.US_ASCII);
        }
        for (char c : "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:@+/#-".toCharArray()) {
            SAFE_CHARS[c] = true;
        }
    }

    private static final System.Logger LOG = System.getLogger(RedisStore.class.getName());

    /** The client; null until {@link #connect} can create it (a Sentinel or Cluster unreachable at start-up). */
    private final java.util.concurrent.atomic.AtomicReference<UnifiedJedis> redis;
    private final java.util.function.Supplier<UnifiedJedis> connect;
    /** Whether a thread is creating the client now: the others do not wait for it (see {@link #redis()}). */
    private final java.util.concurrent.atomic.AtomicBoolean connecting = new java.util.concurrent.atomic.AtomicBoolean();
    private volatile boolean closed;
    /** A standalone URL's store: on {@code READONLY} its client is replaced (see {@link #dropIfReadOnly}). */
    private final boolean reconnectsOnReadOnly;
    private final boolean owned;
    private final boolean cluster;
    private final String head;
    private final Cache<String, byte[]> ruleHeads = Caffeine.newBuilder().maximumSize(MAX_CACHED)
            .executor(Runnable::run).build();
    private final boolean hashTag;
    private final boolean applicationTime;
    private final Duration timeout;
    private final int poolSize;
    private final String description;
    private final String node = UUID.randomUUID().toString().substring(0, 8);
    private final AtomicLong requests = new AtomicLong();

    private RedisStore(Builder b, UnifiedJedis redis, boolean owned, String description) {
        this(b, redis, null, isCluster(redis), false, owned, description);
    }

    /** Jedis 8's cluster client, or the {@code JedisCluster} of earlier versions that many applications still hold. */
    @SuppressWarnings("deprecation")
    private static boolean isCluster(UnifiedJedis redis) {
        return redis instanceof RedisClusterClient || redis instanceof redis.clients.jedis.JedisCluster;
    }

    /**
     * @param connect creates the client when {@code redis} is null, on the first call that needs it
     * @param reconnectsOnReadOnly a standalone URL's store, whose client is replaced on {@code READONLY}
     */
    private RedisStore(Builder b, UnifiedJedis redis, java.util.function.Supplier<UnifiedJedis> connect, boolean cluster,
            boolean reconnectsOnReadOnly, boolean owned, String description) {
        this.redis = new java.util.concurrent.atomic.AtomicReference<>(redis);
        this.connect = connect;
        this.reconnectsOnReadOnly = reconnectsOnReadOnly;
        this.owned = owned;
        this.cluster = cluster;
        this.hashTag = b.hashTag;
        this.head = (b.hashTag ? "{" + b.prefix + "}" : b.prefix) + ":";
        this.applicationTime = b.applicationTime;
        this.description = description;
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

    /**
     * @return the client, created now if a Sentinel or Cluster could not be reached when the store was built
     * @throws StoreException while it still cannot be reached (the engine's breaker spaces the attempts out)
     */
    private UnifiedJedis redis() {
        UnifiedJedis r = redis.get();
        if (r != null) {
            return r;
        }
        // one thread connects; the others fail at once instead of each waiting for a connect of its own in turn,
        // which while the servers are down would hold every request for many times its budget
        if (closed || !connecting.compareAndSet(false, true)) {
            throw new StoreException(closed ? "the Redis store is closed (" + description + ")"
                    : "connecting to the Redis store (" + description + ")");
        }
        try {
            r = redis.get();
            if (r == null) {
                r = connect.get();
                redis.set(r);
                if (closed) {           // closed meanwhile: this client is nobody's to close later
                    redis.set(null);
                    r.close();
                    throw new StoreException("the Redis store is closed (" + description + ")");
                }
            }
            return r;
        } catch (JedisException e) {
            throw new StoreException("cannot reach the Redis store (" + description + "): " + e.getMessage(), e);
        } finally {
            connecting.set(false);
        }
    }

    @Override
    public List<Outcome> evaluate(List<Check> checks, long nowMicros) {
        int n = checks.size();
        if (n == 0) {
            return List.of();
        }
        byte[] now = applicationTime ? number(nowMicros) : EMPTY;
        byte[] requestId = EMPTY;
        for (int i = 0; i < n; i++) {
            if (checks.get(i).policy().algorithm() == Algorithm.SLIDING_LOG) {   // only the log names its members
                requestId = (node + "-" + Long.toString(requests.incrementAndGet(), 36)).getBytes(StandardCharsets.UTF_8);
                break;
            }
        }
        if (!cluster || hashTag || n == 1) {
            Object reply = run(n, params(checks, null, null, now, requestId));
            if (reply instanceof Long packed) {
                return List.of(admitted(packed, checks.get(0).policy()));
            }
            Outcome[] out = new Outcome[n];
            for (int i = 0; i < n; i++) {
                out[i] = outcome((List<?>) reply, i, checks.get(i).policy());
            }
            return Arrays.asList(out);
        }
        Outcome[] out = new Outcome[n];
        byte[][] keys = new byte[n][];        // each key encoded (and hashed when unsafe) once, for its slot and the call
        for (int i = 0; i < n; i++) {
            keys[i] = keyBytes(checks.get(i).rule(), checks.get(i).key());
        }
        List<List<Integer>> groups = groups(keys);
        List<byte[][]> params = new ArrayList<>(groups.size());
        for (List<Integer> group : groups) {
            params.add(params(checks, group, keys, now, requestId));
        }
        List<Object> replies = groups.size() == 1 ? List.of(run(groups.get(0).size(), params.get(0)))
                : pipelined(groups, params);
        for (int g = 0; g < groups.size(); g++) {
            Object reply = replies.get(g);
            List<Integer> group = groups.get(g);
            for (int k = 0; k < group.size(); k++) {
                int i = group.get(k);
                out[i] = reply instanceof Long packed ? admitted(packed, checks.get(i).policy())
                        : outcome((List<?>) reply, k, checks.get(i).policy());
            }
        }
        return Arrays.asList(out);
    }

    /**
     * The script's arguments, keys first: the mode ({@code e}: every check inline; {@code E}: some need the script's
     * library; {@code g}: one enforced GCRA check of cost 1, then only its capacity and interval) followed by the
     * application's time when it is passed; in mode {@code E} the request id; per check its algorithm's code (upper case: shadow) followed by its cost
     * unless it is 1, then only the numbers its algorithm reads (cached per policy, already encoded).
     *
     * @param group the indexes of the checks of one hash slot; null for all of them
     * @param keys the checks' keys, already encoded; null to encode them here
     */
    private byte[][] params(List<Check> checks, List<Integer> group, byte[][] keys, byte[] now, byte[] requestId) {
        int n = group == null ? checks.size() : group.size();
        if (n == 1) {
            int i = group == null ? 0 : group.get(0);
            Check c = checks.get(i);
            if (c.cost() == 1 && !c.shadow() && c.policy().algorithm() == Algorithm.GCRA) {
                byte[][] spec = spec(c.policy());           // capacity and interval
                return new byte[][] {keys != null ? keys[i] : keyBytes(c.rule(), c.key()),
                        now.length == 0 ? ONE_GCRA : concat(ONE_GCRA, now), spec[2], spec[3]};
            }
        }
        byte[][][] specs = new byte[n][][];
        int size = n + 1;
        boolean inline = true;
        for (int k = 0; k < n; k++) {
            Check c = checks.get(group == null ? k : group.get(k));
            specs[k] = spec(c.policy());
            inline &= INLINE.contains(c.policy().algorithm());
            size += specs[k].length - 1;        // code and cost, the numbers (the spec holds two codes)
            Algorithm a = c.policy().algorithm();
            if (a == Algorithm.FIXED_WINDOW || a == Algorithm.CONCURRENCY) {
                size++;                         // the stagger offset, the lease id
            }
        }
        if (!inline) {
            size++;
        }
        byte[][] params = new byte[size][];
        int at = n;
        byte[] mode = inline ? EVALUATE : EVALUATE_ALL;        // then the application's time, if it is passed
        params[at++] = now.length == 0 ? mode : concat(mode, now);
        if (!inline) {
            params[at++] = requestId;
        }
        for (int k = 0; k < n; k++) {
            int i = group == null ? k : group.get(k);
            Check c = checks.get(i);
            byte[][] spec = specs[k];
            params[k] = keys != null ? keys[i] : keyBytes(c.rule(), c.key());
            byte[] code = spec[c.shadow() ? 1 : 0];
            params[at++] = c.cost() == 1 ? code : concat(code, Long.toString(c.cost()).getBytes(StandardCharsets.US_ASCII));
            for (int f = 2; f < spec.length; f++) {
                params[at++] = spec[f];
            }
            Algorithm a = c.policy().algorithm();
            if (a == Algorithm.FIXED_WINDOW) {
                params[at++] = number(Algorithms.staggerOffsetMicros(c.key(), c.policy()));
            } else if (a == Algorithm.CONCURRENCY) {
                params[at++] = c.leaseId() == null ? EMPTY : c.leaseId().getBytes(StandardCharsets.UTF_8);
            }
        }
        return params;
    }

    /** A policy's code (enforced, shadow) and the numbers its algorithm reads, encoded once per policy. */
    private static byte[][] spec(Policy p) {
        byte[][] spec = SPECS.getIfPresent(p);
        return spec != null ? spec : SPECS.get(p, RedisStore::encode);
    }

    private static byte[][] encode(Policy p) {
        long cap = p.capacity();
        long interval = p.intervalMicros();
        long[] numbers = switch (p.algorithm()) {
            case GCRA, TOKEN_BUCKET -> new long[] {cap, interval};
            case LEAKY_BUCKET -> new long[] {cap, interval, p.maxWaitMicros(),
                    Math.min(p.delayThreshold(), cap)};   // as LeakyBucket: above the capacity it delays nothing
            case FIXED_WINDOW, SLIDING_WINDOW -> new long[] {p.limit(), p.periodMicros()};
            case WARM_UP -> new long[] {p.limit(), p.periodMicros(), p.warmupMicros(), p.coldFactor()};
            case SLIDING_LOG -> new long[] {p.limit(), p.periodMicros(), p.minIntervalMicros(), p.countRejected() ? 1 : 0};
            case CONCURRENCY -> new long[] {p.limit(), p.leaseTimeoutMicros()};
        };
        char code = switch (p.algorithm()) {
            case GCRA -> 'g';
            case TOKEN_BUCKET -> 't';
            case LEAKY_BUCKET -> 'k';
            case FIXED_WINDOW -> 'f';
            case SLIDING_WINDOW -> 's';
            case WARM_UP -> 'w';
            case SLIDING_LOG -> 'l';
            case CONCURRENCY -> 'c';
        };
        byte[][] spec = new byte[2 + numbers.length][];
        spec[0] = new byte[] {(byte) code};
        spec[1] = new byte[] {(byte) Character.toUpperCase(code)};
        for (int i = 0; i < numbers.length; i++) {
            spec[2 + i] = Long.toString(numbers[i]).getBytes(StandardCharsets.US_ASCII);
        }
        return spec;
    }

    /** {@link #key(String, String)} encoded; the {@code prefix:rule:} part cached per rule. */
    private byte[] keyBytes(String rule, String key) {
        byte[] head = ruleHeads.getIfPresent(rule);
        if (head == null) {
            head = ruleHeads.get(rule, r -> (this.head + safeRule(r) + ":").getBytes(StandardCharsets.UTF_8));
        }
        return concat(head, safe(key).getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static byte[] number(long n) {
        return n >= 0 && n < NUMBERS.length ? NUMBERS[(int) n] : Long.toString(n).getBytes(StandardCharsets.US_ASCII);
    }

    /** Cluster: one script call per hash-slot group, all sent in one pipeline to their masters. */
    private List<Object> pipelined(List<List<Integer>> groups, List<byte[][]> params) {
        List<Object> replies = new ArrayList<>(groups.size());
        UnifiedJedis client = redis();
        try {
            List<Response<Object>> responses = new ArrayList<>(groups.size());
            try (AbstractPipeline pipeline = client.pipelined()) {
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
                    replies.add(reload(client, groups.get(g).size(), params.get(g)));
                }
            }
            return replies;
        } catch (JedisException | ClassCastException e) {
            dropIfReadOnly(e, client);
            throw new StoreException("Redis call failed (" + description + "): " + e.getMessage(), e);
        }
    }

    @Override
    public void release(List<Lease> leases, long nowMicros) {
        if (leases.isEmpty()) {
            return;
        }
        byte[][] keys = new byte[leases.size()][];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = keyBytes(leases.get(i).rule(), leases.get(i).key());
        }
        List<List<Integer>> groups = cluster && !hashTag ? groups(keys) : Collections.singletonList(null);
        for (List<Integer> group : groups) {     // null: one call for all
            int n = group == null ? keys.length : group.size();
            byte[][] params = new byte[2 * n + 1][];
            params[n] = (applicationTime ? "r" + nowMicros : "r").getBytes(StandardCharsets.US_ASCII);
            for (int k = 0; k < n; k++) {
                int i = group == null ? k : group.get(k);
                params[k] = keys[i];
                params[n + 1 + k] = leases.get(i).id().getBytes(StandardCharsets.UTF_8);
            }
            run(n, params);
        }
    }

    @Override
    public void reset(String rule, String key) {
        try {
            redis().del(key(rule, key));
        } catch (JedisException e) {
            throw new StoreException("Redis reset failed: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        closed = true;          // a client created after this is closed by its creator (see redis())
        UnifiedJedis r = redis.get();
        if (owned && r != null) {
            r.close();
        }
    }

    /**
     * @return the Redis key of a rule's key: {@code prefix:rule:key}, the key part hashed when long or unsafe, the rule
     *     part when it is no {@link io.sluice.core.Rule} name
     */
    public String key(String rule, String key) {
        return head + safeRule(rule) + ":" + safe(key);
    }

    @Override
    public String toString() {
        return description;
    }

    static String safe(String key) {
        return isSafe(key) ? key : hash(key);
    }

    /**
     * A rule's name as it is when a {@link io.sluice.core.Rule} may have it, else hashed: a name given to
     * {@code Engine.tryAcquire} may hold anything, and one holding {@code :} would share keys with another name
     * ({@code "a:b"} and key {@code "c"}, {@code "a"} and key {@code "b:c"}). A hash holds no {@code :} and starts with
     * {@code #}, which no kept name does.
     */
    static String safeRule(String rule) {
        return RULE.matcher(rule).matches() ? rule : hash(rule);
    }

    private static String hash(String value) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
            return "#" + Base64.getUrlEncoder().withoutPadding().encodeToString(digest).substring(0, 22);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java platform", e);
        }
    }

    /** The same test as the pattern {@code [A-Za-z0-9._:@+/#-]{1,64}}, without a regex on every request. */
    static boolean isSafe(String key) {
        int n = key.length();
        if (n == 0 || n > MAX_RAW_KEY) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            char c = key.charAt(i);
            if (c >= 128 || !SAFE_CHARS[c]) {
                return false;
            }
        }
        return true;
    }

    /**
     * Cluster without a hash tag: the indexes of the checks (or leases), grouped by the hash slot of their encoded
     * keys, in order of first appearance.
     */
    private static List<List<Integer>> groups(byte[][] keys) {
        Map<Integer, List<Integer>> bySlot = new LinkedHashMap<>();
        for (int i = 0; i < keys.length; i++) {
            bySlot.computeIfAbsent(JedisClusterCRC16.getSlot(keys[i]), s -> new ArrayList<>()).add(i);
        }
        return new ArrayList<>(bySlot.values());
    }

    /**
     * Check {@code k}'s outcome from a reply of 4 integers per check: 0 when denied else 1 + delay, remaining,
     * reset-after, retry-after. (One check admitted at once may be one integer instead: see {@link #admitted}.)
     */
    private static Outcome outcome(List<?> reply, int k, Policy p) {
        int at = 4 * k;
        long allowed = ((Number) reply.get(at)).longValue();
        long retry = ((Number) reply.get(at + 3)).longValue();
        return new Outcome(allowed > 0, limit(p), ((Number) reply.get(at + 1)).longValue(),
                ((Number) reply.get(at + 2)).longValue(), retry < 0 ? Outcome.NEVER : retry, allowed > 0 ? allowed - 1 : 0);
    }

    /**
     * One check admitted at once, in the script's packed form: reset-after x (limit + 1) + remaining (packed only when
     * below 2^53, so exact in Lua's doubles).
     */
    private static Outcome admitted(long packed, Policy p) {
        long limit = limit(p);
        return Outcome.allow(limit, packed % (limit + 1), packed / (limit + 1));
    }

    private static long limit(Policy p) {
        return switch (p.algorithm()) {
            case GCRA, TOKEN_BUCKET, LEAKY_BUCKET -> p.capacity();
            default -> p.limit();
        };
    }

    /**
     * A call that timed out waiting for its reply may still run on the server (the script was sent; Redis was only
     * slow): sending it again would count the request twice, and would spend the time budget twice. Only a connection
     * that failed otherwise (a pooled connection a restarted Redis closed) is retried.
     */
    private static void requireNotRun(JedisConnectionException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof java.net.SocketTimeoutException) {
                throw e;
            }
        }
    }

    /**
     * One script call with encoded arguments, the first {@code keys} of them keys; after SCRIPT FLUSH or a restart the
     * script is sent in full (which caches it again).
     */
    private Object run(int keys, byte[][] params) {
        UnifiedJedis client = redis();
        try {
            try {
                return call(client, keys, params);
            } catch (JedisConnectionException stale) {
                requireNotRun(stale);
                return call(client, keys, params);   // a pooled connection that a restarted Redis closed: once more, anew
            }
        } catch (JedisException | ClassCastException e) {
            dropIfReadOnly(e, client);
            throw new StoreException("Redis call failed (" + description + "): " + e.getMessage(), e);
        }
    }

    /**
     * A {@code READONLY} answer: the server this client is connected to is a replica now. Behind a name that a
     * failover moves to the new master (a managed Redis's primary endpoint), the pooled connections would stay on the
     * demoted node and every call would fail until the application restarted. So the client is closed and a new one,
     * whose connections resolve the name anew, is created on the next call. An application's own client is its own
     * to manage, and a Cluster client follows its masters itself.
     */
    private void dropIfReadOnly(RuntimeException e, UnifiedJedis seen) {
        String message = e.getMessage();
        if (!reconnectsOnReadOnly || message == null || !message.contains("READONLY")) {
            return;
        }
        if (!redis.compareAndSet(seen, null)) {
            return;                         // dropped already, maybe replaced: a late READONLY of the old one
        }
        LOG.log(System.Logger.Level.WARNING, "Redis answered READONLY (" + description + "): the server is a replica"
                + " now; connecting anew on the next call");
        try {
            seen.close();
        } catch (RuntimeException ignored) {
            // closing a pool whose connections are broken may fail; the new client does not depend on it
        }
    }

    private Object call(UnifiedJedis client, int keys, byte[][] params) {
        try {
            return client.evalsha(SHA_BYTES, keys, params);
        } catch (JedisNoScriptException e) {
            return reload(client, keys, params);
        }
    }

    /**
     * The script is not in the server's cache (a restart, {@code SCRIPT FLUSH}, a failover to a node that never had it):
     * loads it with {@code SCRIPT LOAD}, on the node of the call's first key, and calls it again. A script loaded so
     * stays until the cache is flushed; one that {@code EVAL} brought in is evicted after 500 others on Redis 7.4 and
     * later, which on a shared Redis would send the whole script again and again. The call did not run: NOSCRIPT is
     * answered before the script starts.
     */
    private Object reload(UnifiedJedis client, int keys, byte[][] params) {
        client.scriptLoad(SCRIPT_BYTES, params[0]);
        return client.evalsha(SHA_BYTES, keys, params);
    }

    private static String loadScript() {
        try (InputStream in = RedisStore.class.getResourceAsStream("sluice.lua")) {
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

    /** Configures and opens a {@link RedisStore}. */
    public static final class Builder {
        private String url;
        private String sentinelMaster;
        private Set<HostAndPort> sentinels;
        private Set<HostAndPort> clusterNodes;
        private UnifiedJedis client;
        private String prefix = DEFAULT_PREFIX;
        private boolean hashTag;
        private boolean applicationTime;
        private Duration timeout = DEFAULT_TIMEOUT;
        private int poolSize = DEFAULT_POOL_SIZE;
        /** Whether {@link #timeout} and {@link #poolSize} were set: an application's client would ignore them. */
        private boolean timeoutSet;
        private boolean poolSizeSet;
        /** Whether {@link #prefix} and {@link #hashTag} were set: a URL that sets them otherwise fails. */
        private boolean prefixSet;
        private boolean hashTagSet;
        private boolean applicationTimeSet;
        private String user;
        private String password;
        private String sentinelUser;
        private String sentinelPassword;
        private boolean sentinelCredentialsSet;

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
            this.sentinels = addresses("sentinels", sentinelAddresses);
            return this;
        }

        /** Redis Cluster: some of its nodes' {@code host:port} addresses. */
        public Builder cluster(Set<String> seedNodes) {
            this.clusterNodes = addresses("cluster", seedNodes);
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
            if (p == null || !PREFIX.matcher(p).matches()) {
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

        /** Builds from a copy: the URL's options never become the builder's, so building twice gives the same store. */
        public RedisStore build() {
            return copy().open();
        }

        /** @return the addresses as {@code host:port,[ipv6]:port}, as a URL writes them */
        private static String listed(Set<HostAndPort> addresses) {
            List<String> out = new ArrayList<>();
            for (HostAndPort a : addresses) {
                out.add((a.getHost().indexOf(':') >= 0 ? "[" + a.getHost() + "]" : a.getHost()) + ":" + a.getPort());
            }
            return String.join(",", out);
        }

        /** @return a builder with every field of this one ({@code RedisUrlTest} checks that none is left out) */
        Builder copy() {
            Builder b = new Builder();
            b.url = url;
            b.sentinelMaster = sentinelMaster;
            b.sentinels = sentinels;
            b.clusterNodes = clusterNodes;
            b.client = client;
            b.prefix = prefix;
            b.hashTag = hashTag;
            b.applicationTime = applicationTime;
            b.timeout = timeout;
            b.poolSize = poolSize;
            b.timeoutSet = timeoutSet;
            b.poolSizeSet = poolSizeSet;
            b.prefixSet = prefixSet;
            b.hashTagSet = hashTagSet;
            b.applicationTimeSet = applicationTimeSet;
            b.user = user;
            b.password = password;
            b.sentinelUser = sentinelUser;
            b.sentinelPassword = sentinelPassword;
            b.sentinelCredentialsSet = sentinelCredentialsSet;
            return b;
        }

        private RedisStore open() {
            int sources = (url != null ? 1 : 0) + (sentinelMaster != null ? 1 : 0) + (clusterNodes != null ? 1 : 0)
                    + (client != null ? 1 : 0);
            if (sources != 1) {
                throw new ConfigException("expected exactly one of a Redis URL, Sentinel, Cluster or a client for the"
                        + " Redis store, got " + sources);
            }
            if ((user != null || password != null) && (url != null || client != null)) {
                throw new ConfigException("credentials are for Sentinel or Cluster: a Redis URL carries its own"
                        + " (redis://user:secret@host:6379), and an application's client is configured already");
            }
            if (client != null && sentinelCredentialsSet) {
                throw new ConfigException("sentinelCredentials are for the sentinels of sentinel(...) or a"
                        + " redis-sentinel:// URL: an application's client is configured already");
            }
            if (client != null && timeoutSet) {
                throw new ConfigException("timeout(...)", timeout.toString(), "applies to the connections the store"
                        + " opens, not to an application's client(...), which has timeouts of its own (set on the client,"
                        + " such as DefaultJedisClientConfig.builder().socketTimeoutMillis(200)); expected no timeout(...)"
                        + " with client(...)");
            }
            if (client != null && poolSizeSet) {
                throw new ConfigException("poolSize(...)", Integer.toString(poolSize), "applies to the connections the"
                        + " store opens, not to an application's client(...), which has a pool of its own (set on the"
                        + " client, such as a ConnectionPoolConfig with setMaxTotal(32)); expected no poolSize(...) with"
                        + " client(...)");
            }
            if (client != null) {
                return new RedisStore(this, client, false, "application client " + client.getClass().getSimpleName());
            }
            Target target = url == null ? null : Target.parse(url);
            String master = sentinelMaster;
            Set<HostAndPort> sentinelNodes = sentinels;
            Set<HostAndPort> cluster = clusterNodes;
            String u = user;
            String pw = password;
            if (target != null) {
                applyUrlSettings(target);
                if (target.master() != null) {              // redis-sentinel://
                    master = target.master();
                    sentinelNodes = addresses(Target.URL_METHOD, target.nodes());
                } else if (!target.nodes().isEmpty()) {     // redis-cluster://
                    cluster = addresses(Target.URL_METHOD, target.nodes());
                }
                u = target.user();
                pw = target.password();
            }
            if (sentinelCredentialsSet && master == null) {
                throw new ConfigException("sentinelCredentials are for the sentinels of sentinel(...) or a"
                        + " redis-sentinel:// URL: with a standalone URL, Cluster or an application's client there are"
                        + " none");
            }
            int millis = (int) timeout.toMillis();
            GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
            pool.setMaxTotal(poolSize);
            pool.setMaxIdle(poolSize);
            pool.setMaxWait(timeout);
            pool.setJmxEnabled(false);
            try {
                if (target != null && master == null && cluster == null) {
                    Target t = target;
                    DefaultJedisClientConfig config = DefaultJedisClientConfig.builder().connectionTimeoutMillis(millis)
                            .socketTimeoutMillis(millis).user(t.user).password(t.password).database(t.database)
                            .ssl(t.ssl).clientName("sluice").build();
                    java.util.function.Supplier<UnifiedJedis> connect = () -> RedisClient.builder()
                            .hostAndPort(t.host, t.port).clientConfig(config).poolConfig(pool).build();
                    return new RedisStore(this, connect.get(), connect, false, true, true, t.toString());
                }
                DefaultJedisClientConfig config = DefaultJedisClientConfig.builder().connectionTimeoutMillis(millis)
                        .socketTimeoutMillis(millis).user(u).password(pw).clientName("sluice").build();
                java.util.function.Supplier<UnifiedJedis> connect;
                String description;
                if (master != null) {
                    DefaultJedisClientConfig sentinelConfig = DefaultJedisClientConfig.builder()
                            .connectionTimeoutMillis(millis).socketTimeoutMillis(millis)
                            .user(sentinelUser).password(sentinelPassword).build();
                    // Jedis reports sentinels that are down, unreachable or refused to authenticate alike, as
                    // "All sentinels down": the hint covers each
                    String hint = " Are the sentinels running and reachable at " + listed(sentinelNodes) + "? If"
                            + " they are" + (sentinelCredentialsSet ? ", do sentinelCredentials(...) match their"
                            + " requirepass in sentinel.conf?" : " and require a password of their own (requirepass in"
                            + " sentinel.conf), give it with sentinelCredentials(user, password)" + (target != null ? " on"
                            + " RedisStore.builder(), in a Store or client the application produces; a URL has no place"
                            + " for it." : "."));
                    String name = master;
                    Set<HostAndPort> addresses = sentinelNodes;
                    connect = () -> {
                        try {
                            return RedisSentinelClient.builder().masterName(name).sentinels(addresses)
                                    .clientConfig(config).sentinelClientConfig(sentinelConfig).poolConfig(pool).build();
                        } catch (redis.clients.jedis.exceptions.JedisConnectionException e) {
                            throw new redis.clients.jedis.exceptions.JedisConnectionException(e.getMessage() + hint, e);
                        }
                    };
                    description = target != null ? target.toString() : "sentinel " + master + " " + sentinelNodes;
                } else {
                    // one attempt after a redirection at most, and never past the call's budget: Jedis's default of
                    // five attempts re-sends a command that timed out (it may have run) and takes five times the budget
                    Set<HostAndPort> seeds = cluster;
                    Duration budget = timeout;
                    connect = () -> RedisClusterClient.builder().nodes(seeds).clientConfig(config)
                            .poolConfig(pool).maxAttempts(CLUSTER_ATTEMPTS).maxTotalRetriesDuration(budget).build();
                    description = target != null ? target.toString() : "cluster " + cluster;
                }
                UnifiedJedis now;
                try {
                    now = connect.get();      // these clients connect at once; a standalone one connects on use
                } catch (JedisException unreachable) {
                    // as a standalone Redis that is down: the application starts, its requests fall back
                    // (on-store-failure) and the client is created on a later call, once the servers answer
                    LOG.log(System.Logger.Level.WARNING, "the Redis store (" + description + ") cannot be reached at"
                            + " start-up; requests fall back as their rules' on-store-failure says until it can: "
                            + unreachable.getMessage());
                    now = null;
                }
                return new RedisStore(this, now, connect, cluster != null, false, true, description);
            } catch (JedisException e) {
                throw new StoreException("cannot open the Redis store: " + e.getMessage(), e);
            }
        }

        /** Takes the URL's options; an option the builder also set, to another value, fails. */
        private void applyUrlSettings(Target target) {
            if (target.timeout() != null) {
                if (timeoutSet && !timeout.equals(target.timeout())) {
                    throw conflict(target, "timeout=" + target.timeout().toMillis() + "ms", "timeout(" + shown(timeout)
                            + ")");
                }
                timeout = target.timeout();
            }
            if (target.poolSize() != 0) {
                if (poolSizeSet && poolSize != target.poolSize()) {
                    throw conflict(target, "pool-size=" + target.poolSize(), "poolSize(" + poolSize + ")");
                }
                poolSize = target.poolSize();
            }
            if (target.prefix() != null) {
                if (prefixSet && !prefix.equals(target.prefix())) {
                    throw conflict(target, "prefix=" + target.prefix(), "prefix(\"" + prefix + "\")");
                }
                prefix = target.prefix();
            }
            if (target.hashTag() != null) {
                if (hashTagSet && hashTag != target.hashTag()) {
                    throw conflict(target, "hash-tag=" + target.hashTag(), "hashTag(" + hashTag + ")");
                }
                hashTag = target.hashTag();
            }
            if (applicationTime && target.redisTime()) {
                throw conflict(target, "time=redis", "applicationTime(true)");
            }
            if (applicationTimeSet && !applicationTime && target.applicationTime()) {
                throw conflict(target, "time=application", "applicationTime(false)");
            }
            applicationTime |= target.applicationTime();
        }

        /**
         * @param option the URL's option, as {@code name=value}
         * @param method the builder's call that set it otherwise, such as {@code timeout(1000 ms)}
         */
        private static ConfigException conflict(Target target, String option, String method) {
            return new ConfigException(Target.URL_METHOD, target.toString(), "option \"" + option + "\" conflicts"
                    + " with " + method + " on the same builder; expected the setting in one of them (or the same"
                    + " value in both)");
        }

        /** @return {@code d} as a builder's timeout shows in messages: {@code 1000 ms}, or {@code PT0.0015S} */
        private static String shown(Duration d) {
            return d.toNanos() % 1_000_000 == 0 ? d.toMillis() + " ms" : d.toString();
        }

        private static Set<HostAndPort> addresses(String parameter, Set<String> values) {
            if (values == null || values.isEmpty()) {
                throw new ConfigException(parameter, null, "expected host:port addresses such as \"10.0.0.5:26379\"");
            }
            Set<HostAndPort> out = new LinkedHashSet<>();
            for (String v : values) {
                int colon = v == null ? -1 : v.lastIndexOf(':');
                String host = colon > 0 ? v.substring(0, colon).trim() : "";
                int port = colon > 0 && v.substring(colon + 1).matches("\\d{1,5}") ? Integer.parseInt(v.substring(colon + 1)) : 0;
                if (!HOST.matcher(host).matches() || port < 1 || port > 65_535) {
                    throw new ConfigException(parameter, v, "expected host:port with a port between 1 and 65535, such as"
                            + " \"10.0.0.5:26379\"");
                }
                out.add(new HostAndPort(host.startsWith("[") ? host.substring(1, host.length() - 1) : host, port));
            }
            return out;
        }
    }

    /**
     * Checks a Redis URL as {@link Builder#url} will read it, without connecting.
     *
     * @param parameter the name errors give (a parameter and where it came from, such as
     *     {@code SLUICE_STORE (environment variable)})
     * @throws ConfigException naming {@code parameter} and quoting the URL without its password
     */
    public static void checkUrl(String parameter, String url) {
        Target.parse(parameter, url);
    }

    /**
     * @return {@code url} without its password, for logs and messages: {@code redis://user:secret@host} gives
     *     {@code redis://user:***@host}, {@code redis://secret@host} gives {@code redis://***@host}. The user part
     *     ends at the last {@code @}, so a password holding {@code /}, {@code :} or {@code @} is hidden whole.
     */
    public static String redact(String url) {
        return StoreProvider.redactPassword(url);
    }

    /** A host name or IPv4 address; underscores allowed (Docker Compose service names). */
    private static final Pattern HOST = Pattern.compile("[A-Za-z0-9_]([A-Za-z0-9_.-]{0,252})|\\[[0-9A-Fa-f:.]+\\]");
    /** Attempts of one cluster call: the first, and one after a redirection ({@code MOVED}, {@code ASK}). */
    private static final int CLUSTER_ATTEMPTS = 2;

    /**
     * A parsed Redis URL; {@code redisTime}: it says {@code ?time=redis}. A {@code redis-sentinel://} URL has the
     * master's name and the sentinels' {@code host:port} as {@code nodes}; a {@code redis-cluster://} URL the seed
     * nodes and no master; a standalone one ({@code redis://}, {@code rediss://}) no nodes.
     */
    record Target(String host, int port, String user, String password, int database, boolean ssl,
            boolean applicationTime, boolean redisTime, Duration timeout, int poolSize, String master, Set<String> nodes,
            String prefix, Boolean hashTag) {

        /** For {@code rediss-sentinel://} and {@code rediss-cluster://}, which Jedis's URL forms do not have. */
        private static final String NO_TLS_URL = "TLS to Sentinel or Cluster cannot be set by a URL (there is no"
                + " rediss-sentinel:// or rediss-cluster://); for Sentinel or Cluster over TLS, give the store a Jedis"
                + " client configured for TLS (a RedisSentinelClient or RedisClusterClient built with"
                + " DefaultJedisClientConfig.builder().ssl(true)): in code with RedisStore.builder().client(...), in the"
                + " servlet or JAX-RS filter by a CDI producer of that client or of the Store. Without TLS, expected"
                + " \"redis-sentinel://10.0.0.5:26379,10.0.0.6:26379/mymaster\" or"
                + " \"redis-cluster://10.0.0.7:7000,10.0.0.8:7000\"";
        private static final String EXAMPLE = "expected a Redis URL such as \"redis://localhost:6379\","
                + " \"rediss://user:secret@redis.internal:6380/2\", \"redis-sentinel://10.0.0.5:26379,10.0.0.6:26379/mymaster\""
                + " or \"redis-cluster://10.0.0.7:7000,10.0.0.8:7000\"";

        /** How errors name a URL given to {@link Builder#url}: the method the application called. */
        static final String URL_METHOD = "url(...)";

        /** A URL given to {@link Builder#url}: errors name {@value #URL_METHOD}. */
        static Target parse(String url) {
            return parse(URL_METHOD, url);
        }

        /** @param parameter the name errors give, such as {@code SLUICE_STORE (environment variable)} */
        static Target parse(String parameter, String url) {
            String shown = redact(url);
            String text = url == null ? "" : url.trim();
            int slashes = text.indexOf("://");
            String hostList = null;
            int end = slashes + 3;          // where the authority ends
            while (slashes > 0 && end < text.length() && "/?#".indexOf(text.charAt(end)) < 0) {
                end++;
            }
            if (slashes > 0 && text.substring(0, slashes).toLowerCase(java.util.Locale.ROOT)
                    .matches("rediss-(sentinel|cluster)")) {
                throw new ConfigException(parameter, shown, NO_TLS_URL);
            }
            if (slashes > 0 && text.indexOf('@', end) >= 0) {
                // a '/', '?' or '#' in the password ended the authority early: what follows it, part of the password,
                // would be read (and quoted) as a host, a path or an option. No '@' belongs after the authority.
                throw new ConfigException(parameter, shown, "expected '/', '?', '#' and '@' in the user or password"
                        + " percent-encoded (\"%2F\", \"%3F\", \"%23\", \"%40\"); " + EXAMPLE);
            }
            if (slashes > 0 && text.substring(0, slashes).toLowerCase(java.util.Locale.ROOT).matches("redis-(sentinel|cluster)")) {
                // java.net.URI takes one host: the list ([IPv6] among them) is read by hand, the rest by URI
                hostList = text.substring(slashes + 3, end);
                text = text.substring(0, slashes + 3) + "h" + text.substring(end);
            }
            URI uri;
            try {
                uri = new URI(text);
            } catch (URISyntaxException e) {
                throw new ConfigException(parameter, shown, EXAMPLE + " (a password's reserved characters, such as"
                        + " '/', '@' or '%', percent-encoded)");
            }
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(java.util.Locale.ROOT);
            boolean ssl = scheme.equals("rediss");
            boolean sentinel = scheme.equals("redis-sentinel");
            boolean cluster = scheme.equals("redis-cluster");
            if (!ssl && !sentinel && !cluster && !scheme.equals("redis") || uri.getRawAuthority() == null) {
                throw new ConfigException(parameter, shown, EXAMPLE);
            }
            if (uri.getRawFragment() != null) {
                throw new ConfigException(parameter, shown, "expected no fragment ('#...') in the Redis URL; " + EXAMPLE);
            }
            // the authority by hand: java.net.URI leaves the host null for names such as "my_redis" (Docker Compose)
            // and for lists of hosts
            String authority = hostList != null ? hostList : uri.getRawAuthority();
            int at = authority.lastIndexOf('@');
            String hosts = authority.substring(at + 1);
            int defaultPort = sentinel ? 26379 : 6379;
            Set<String> nodes = new LinkedHashSet<>();
            String host = null;
            int port = 0;
            if (sentinel || cluster) {
                for (String one : hosts.split(",", -1)) {
                    HostPort hp = hostAndPort(parameter, shown, one, defaultPort, true);
                    nodes.add((hp.host().indexOf(':') >= 0 ? "[" + hp.host() + "]" : hp.host()) + ":" + hp.port());
                }
            } else {
                HostPort hp = hostAndPort(parameter, shown, hosts, defaultPort, false);
                host = hp.host();
                port = hp.port();
            }
            String user = null;
            String password = null;
            if (at >= 0) {
                String[] parts = authority.substring(0, at).split(":", 2);
                user = parts.length == 2 && !parts[0].isEmpty() ? decode(parameter, shown, parts[0]) : null;
                password = decode(parameter, shown, parts.length == 2 ? parts[1] : parts[0]);
            }
            int database = 0;
            String master = null;
            String path = uri.getPath();
            if (sentinel) {
                master = path == null || path.length() < 2 ? "" : path.substring(1);
                if (!MASTER.matcher(master).matches()) {
                    throw new ConfigException(parameter, shown, "expected the master's name after the sentinels, such"
                            + " as \"redis-sentinel://10.0.0.5:26379,10.0.0.6:26379/mymaster\" (letters, digits, '.',"
                            + " '_' or '-'; no database: the master's is 0)");
                }
            } else if (cluster) {
                if (path != null && path.length() > 1) {
                    throw new ConfigException(parameter, shown, "expected no path after the seed nodes of a cluster"
                            + " (a cluster has database 0 only), such as \"redis-cluster://10.0.0.7:7000,10.0.0.8:7000\"");
                }
            } else if (path != null && path.length() > 1) {
                database = path.substring(1).matches("\\d{1,9}") ? Integer.parseInt(path.substring(1)) : -1;
                if (database < 0) {
                    throw new ConfigException(parameter, shown, "expected a database number (0 or more) after the"
                            + " address, such as \"redis://localhost:6379/2\"");
                }
            }
            Boolean applicationTime = null;
            Duration timeout = null;
            int poolSize = 0;
            String prefix = null;
            Boolean hashTag = null;
            if (uri.getRawQuery() != null) {
                Set<String> seen = new java.util.HashSet<>();
                for (String option : uri.getRawQuery().split("&")) {
                    if (option.isEmpty()) {
                        continue;           // "?", "&&" or a trailing '&': nothing said
                    }
                    int eq = option.indexOf('=');
                    String name = eq < 0 ? option : option.substring(0, eq);
                    String value = eq < 0 ? "" : option.substring(eq + 1);
                    if (!OPTIONS.contains(name)) {
                        String meant = meant(name);
                        throw new ConfigException(parameter, shown, "unknown option \"" + bounded(option) + "\"; "
                                + (meant == null ? "" : "did you mean \"" + meant + "\"? (option names are lower case,"
                                + " words joined by '-'); ") + OPTIONS_HELP);
                    }
                    if (!seen.add(name)) {
                        throw new ConfigException(parameter, shown, "option \"" + name + "\" given twice; "
                                + OPTIONS_HELP);
                    }
                    switch (name) {
                        case "time" -> {
                            if (!value.equals("application") && !value.equals("redis")) {
                                throw new ConfigException(parameter, shown, "expected \"?time=application\" or"
                                        + " \"?time=redis\" (the default)");
                            }
                            applicationTime = value.equals("application");
                        }
                        case "timeout" -> timeout = urlTimeout(parameter, shown, value);
                        case "prefix" -> {
                            if (!PREFIX.matcher(value).matches()) {
                                throw new ConfigException(parameter, shown, "expected \"?prefix=\" 1 to 32 letters,"
                                        + " digits, '.', '_' or '-', such as \"?prefix=orders\"");
                            }
                            prefix = value;
                        }
                        case "hash-tag" -> {
                            if (!value.equals("true") && !value.equals("false")) {
                                throw new ConfigException(parameter, shown, "expected \"?hash-tag=true\" or"
                                        + " \"?hash-tag=false\" (the default)");
                            }
                            hashTag = value.equals("true");
                        }
                        default -> {            // pool-size
                            poolSize = value.matches("\\d{1,5}") ? Integer.parseInt(value) : 0;
                            if (poolSize < 1 || poolSize > 10_000) {
                                throw new ConfigException(parameter, shown, "expected \"?pool-size=\" a whole number"
                                        + " of connections between 1 and 10000, such as \"?pool-size=32\"");
                            }
                        }
                    }
                }
            }
            return new Target(host, port, user, password, database, ssl, Boolean.TRUE.equals(applicationTime),
                    Boolean.FALSE.equals(applicationTime), timeout, poolSize, master, Collections.unmodifiableSet(nodes), prefix,
                    hashTag);
        }

        /** One address of a URL: a host name, IPv4 or IPv6 address (without brackets), and its port. */
        private record HostPort(String host, int port) {}

        /** @return the address in {@code text}: a host name, IPv4 or {@code [IPv6]} address and an optional port */
        private static HostPort hostAndPort(String parameter, String shown, String text, int defaultPort, boolean list) {
            String host;
            String portText;
            if (text.startsWith("[")) {
                int close = text.indexOf(']');
                host = close < 0 ? "" : text.substring(1, close);
                portText = close < 0 ? "" : text.substring(close + 1);
            } else {
                int colon = text.indexOf(':');
                host = colon < 0 ? text : text.substring(0, colon);
                portText = colon < 0 ? "" : text.substring(colon);
            }
            if (host.isEmpty() || !(text.startsWith("[") ? host.matches("[0-9A-Fa-f:.]+") : HOST.matcher(host).matches())) {
                throw new ConfigException(parameter, shown, list ? "expected a host name or address with an optional"
                        + " port in every entry of the list, separated by ',' without spaces, got entry \"" + text
                        + "\"; " + EXAMPLE : "expected a host name or address after \"//\"; " + EXAMPLE);
            }
            int port = defaultPort;
            if (!portText.isEmpty()) {
                port = portText.matches(":\\d{1,5}") ? Integer.parseInt(portText.substring(1)) : 0;
                if (port < 1 || port > 65_535) {
                    throw new ConfigException(parameter, shown, "expected a port between 1 and 65535 after the host,"
                            + " such as " + (list ? "\"redis-cluster://10.0.0.7:7000,10.0.0.8:7000\", got entry \""
                            + text + "\"" : "\"redis://localhost:6379\""));
                }
            }
            return new HostPort(host, port);
        }

        private static final Set<String> OPTIONS = Set.of("time", "timeout", "pool-size", "prefix", "hash-tag");
        private static final String OPTIONS_HELP = "the Redis URL takes \"time=application\" or \"time=redis\" (the"
                + " default), \"timeout=<duration>\" (default 50ms), \"pool-size=<connections>\" (default 16),"
                + " \"prefix=<key prefix>\" (default sluice) and \"hash-tag=true\" (default false), each at most once,"
                + " such as \"redis://host:6379?timeout=200ms&pool-size=32\"";
        /** A Sentinel master's name. */
        private static final Pattern MASTER = Pattern.compile("[A-Za-z0-9._-]{1,64}");

        /**
         * @return the option {@code name} was meant to be when it differs only in case, {@code '-'} or {@code '_'}
         *     ({@code Timeout}, {@code poolSize}, {@code hash_tag}); null otherwise
         */
        private static String meant(String name) {
            String folded = name.toLowerCase(java.util.Locale.ROOT).replace("-", "").replace("_", "");
            for (String option : OPTIONS) {
                if (option.replace("-", "").equals(folded)) {
                    return option;
                }
            }
            return null;
        }

        private static String bounded(String option) {
            return option.length() <= 40 ? option : option.substring(0, 40) + "...";
        }

        private static Duration urlTimeout(String parameter, String shown, String value) {
            Duration d = null;
            if (value.matches("\\d{1,6}(ms|s)")) {
                d = PolicyParser.parseDuration(parameter, value);
            }
            if (d == null || d.compareTo(Duration.ofMillis(1)) < 0 || d.compareTo(Duration.ofSeconds(60)) > 0) {
                throw new ConfigException(parameter, shown, "expected \"?timeout=\" a duration between 1ms and 60s in ms"
                        + " or s, such as \"?timeout=200ms\"");
            }
            return d;
        }

        /** Percent-decoding only: in a URL a '+' is itself, not a space as in a form. */
        private static String decode(String parameter, String shown, String s) {
            try {
                return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                // never e's message: it quotes the characters after the '%', part of the password
                throw new ConfigException(parameter, shown, "expected '%' followed by two hex digits in the user or"
                        + " password (a '%' itself is \"%25\"); " + EXAMPLE);
            }
        }

        @Override
        public String toString() {
            String credentials = user != null ? user + ":***@" : password != null ? ":***@" : "";
            if (!nodes.isEmpty()) {
                return (master != null ? "redis-sentinel://" : "redis-cluster://") + credentials + String.join(",", nodes)
                        + (master != null ? "/" + master : "") + options();
            }
            return (ssl ? "rediss://" : "redis://") + credentials + (host.indexOf(':') >= 0 ? "[" + host + "]" : host)
                    + ":" + port + (database != 0 ? "/" + database : "") + options();
        }

        /** @return the options given, as a query ("" when none) */
        private String options() {
            List<String> given = new ArrayList<>();
            if (applicationTime || redisTime) {
                given.add(applicationTime ? "time=application" : "time=redis");
            }
            if (timeout != null) {
                given.add("timeout=" + timeout.toMillis() + "ms");
            }
            if (poolSize != 0) {
                given.add("pool-size=" + poolSize);
            }
            if (prefix != null) {
                given.add("prefix=" + prefix);
            }
            if (hashTag != null) {
                given.add("hash-tag=" + hashTag);
            }
            return given.isEmpty() ? "" : "?" + String.join("&", given);
        }
    }
}
