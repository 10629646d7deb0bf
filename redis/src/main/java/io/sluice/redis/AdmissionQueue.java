package io.sluice.redis;

import io.sluice.core.Limiter;
import io.sluice.core.store.JobQueue;
import io.sluice.core.store.StoreException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.params.XPendingParams;
import redis.clients.jedis.resps.StreamEntry;
import redis.clients.jedis.resps.StreamPendingEntry;

/**
 * A fleet-wide admission queue on a Redis Stream: work is admitted only while the stream holds fewer than
 * {@link Builder#bound(int) N} entries, and a consumer group of workers, on any node, processes it at the pace a Sluice
 * {@link Limiter} sets for the whole fleet.
 *
 * <pre>
 * Limiter pace = engine.limiter("jobs", Policy.parse("20/1s"));          // an engine on a RedisStore: fleet-wide
 * try (AdmissionQueue jobs = AdmissionQueue.builder("jobs").url("redis://redis:6379").bound(1_000)
 *         .claimTimeout(Duration.ofSeconds(30)).pace(pace).build()) {
 *     AdmissionQueue.Admission a = jobs.offer("{\"invoice\": 42}");
 *     if (!a.accepted()) { ... answer 429, Retry-After: a.retryAfter() ... }
 *     AdmissionQueue.Worker w = jobs.consume("workers", "node-1", entry -&gt; send(entry.payload()));
 *     jobs.outcome(a.id());                                              // QUEUED, PROCESSING, DONE or FAILED
 * }
 * </pre>
 *
 * <p><b>Admission</b> ({@link #offer}) is one Lua script: the stream's length ({@code XLEN}) and the {@code XADD} in
 * one atomic step, so the stream never holds more than N entries, whatever the number of producers and nodes. An
 * entry stays in the stream until its outcome is recorded, so N bounds the entries waiting and in progress together.
 * A refusal carries a retry hint: the time the fleet's pace needs to free a place.
 *
 * <p><b>Workers</b> ({@link #consume}) read one entry at a time with {@code XREADGROUP}, then take one permit from the
 * pace limiter ({@link Limiter#acquire}, waiting as long as the fleet's limit says: the permit is taken with the entry
 * in hand, so idle workers take none), run the handler, and record the outcome: one Lua script acknowledges
 * ({@code XACK}), deletes the entry ({@code XDEL}), writes the outcome hash and the result stream and counts it. An
 * entry delivered to a worker that died (or hangs) is claimed again by another with {@code XAUTOCLAIM} once it has been
 * idle for the {@link Builder#claimTimeout claim timeout}; each worker scans for such entries at least every half claim
 * timeout. A worker waiting for its permit longer than a third of the claim timeout refreshes its entry's idle time
 * ({@code XCLAIM ... JUSTID}), so that a slow pace alone does not hand the entry to another.
 *
 * <p><b>At least once.</b> An entry is processed at least once, and may be processed more than once: when a worker
 * dies after its handler ran but before the outcome was recorded, or when a handler runs longer than the claim timeout
 * (another worker claims it meanwhile). <b>Handlers must be idempotent.</b> The first outcome recorded for an entry
 * wins; a later one is dropped (its {@code XACK} finds nothing pending).
 *
 * <p><b>Outcomes</b>: a handler that returns is {@link Status#DONE}; one that throws is {@link Status#FAILED}, with
 * the exception's message, and is not retried (retrying is the handler's business). A handler interrupted because its
 * worker is closing records nothing: the entry stays pending and is claimed again after the claim timeout. Each outcome
 * is kept in a hash per entry for the {@link Builder#resultRetention result retention} (for {@link #outcome}), and
 * appended to a result stream capped at {@link Builder#resultRetention its length}, for operators
 * ({@code XREVRANGE {prefix:queue:name}:results + - COUNT 20}).
 *
 * <p><b>Keys</b>, all in one Cluster hash slot: {@code {prefix:queue:name}} (the stream),
 * {@code {prefix:queue:name}:results} (capped result stream), {@code {prefix:queue:name}:outcome:<id>} (an entry's
 * outcome, with a TTL) and {@code {prefix:queue:name}:processed} (the count of recorded outcomes).
 *
 * <p><b>Limits</b>: the bound N (1 to 10,000,000); the claim timeout (at least 100 ms: it must exceed a handler's
 * running time, or entries are processed twice); the payload's size ({@link Builder#maxPayloadBytes}, 64 KiB by
 * default, UTF-8); outcomes kept for a day and the last 10,000 in the result stream by default. One consumer group
 * processes a queue (an entry is deleted once its outcome is recorded). Needs Redis 6.2 or later ({@code XAUTOCLAIM}).
 *
 * <p>Thread-safe. {@link #close()} stops every worker it started (each finishes the entry in hand, within the claim
 * timeout, else is interrupted) and closes the client it opened ({@link Builder#url}); an application's client
 * ({@link Builder#client}) stays open.
 */
public final class AdmissionQueue implements AutoCloseable {

    static final System.Logger LOG = System.getLogger(AdmissionQueue.class.getName());

    /** The default bound on the payload's size, in UTF-8 bytes: 64 KiB. */
    public static final int DEFAULT_MAX_PAYLOAD_BYTES = 64 * 1024;
    /** The default claim timeout: 30 s. */
    public static final Duration DEFAULT_CLAIM_TIMEOUT = Duration.ofSeconds(30);
    /** How long outcomes are kept by default: a day. */
    public static final Duration DEFAULT_RESULT_TTL = Duration.ofDays(1);
    /** How many outcomes the result stream keeps by default. */
    public static final int DEFAULT_RESULT_LENGTH = 10_000;
    /** The largest bound. */
    public static final int MAX_BOUND = 10_000_000;

    /**
     * KEYS[1] the stream; ARGV[1] the bound, ARGV[2] the payload. Answers {1, id, length after} or {0, length}.
     */
    static final String ADMIT = """
            local len = redis.call('XLEN', KEYS[1])
            if len >= tonumber(ARGV[1]) then return {0, len} end
            local id = redis.call('XADD', KEYS[1], '*', 'payload', ARGV[2])
            return {1, id, len + 1}
            """;

    /**
     * KEYS[1] the stream, KEYS[2] the result stream, KEYS[3] the outcome hash, KEYS[4] the processed count;
     * ARGV: group, id, status, worker, at (epoch ms), error, ttl (ms), result stream length. Answers 1 when this
     * outcome was recorded, 0 when the entry was no longer pending (another worker's outcome came first).
     */
    static final String FINISH = """
            local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[2], ARGV[2], 1)
            local deliveries = 1
            if p[1] then deliveries = p[1][4] end
            if redis.call('XACK', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
            redis.call('XDEL', KEYS[1], ARGV[2])
            redis.call('HSET', KEYS[3], 'status', ARGV[3], 'worker', ARGV[4], 'at', ARGV[5], 'error', ARGV[6],
              'deliveries', deliveries)
            redis.call('PEXPIRE', KEYS[3], ARGV[7])
            redis.call('XADD', KEYS[2], 'MAXLEN', ARGV[8], '*', 'id', ARGV[2], 'status', ARGV[3], 'worker', ARGV[4],
              'at', ARGV[5], 'error', ARGV[6], 'deliveries', deliveries)
            redis.call('INCR', KEYS[4])
            return 1
            """;

    /** What became of an entry. */
    public enum Status {
        /** In the stream, not yet delivered to a worker. */
        QUEUED,
        /** Delivered to a worker ({@link Outcome#worker()}), no outcome yet. */
        PROCESSING,
        /** The handler returned. */
        DONE,
        /** The handler threw: {@link Outcome#error()}. */
        FAILED
    }

    /**
     * The answer to {@link #offer}.
     *
     * @param accepted whether the payload entered the stream
     * @param id the entry's stream id when accepted, else null
     * @param length the stream's length after the admission (accepted) or when it was refused (full)
     * @param retryAfter when refused, how long the fleet's pace needs to free a place (at least its interval between
     *     two permits); {@link Duration#ZERO} when accepted
     */
    public record Admission(boolean accepted, String id, long length, Duration retryAfter) {}

    /**
     * An entry a handler processes.
     *
     * @param id its stream id
     * @param payload what was offered
     * @param admitted when it was admitted (the stream id's time, Redis's clock)
     * @param reclaimed whether this worker claimed it from another that did not finish it in time
     */
    public record Entry(String id, String payload, Instant admitted, boolean reclaimed) {}

    /**
     * What {@link #outcome} knows of an entry.
     *
     * @param id the entry's id
     * @param status where it is
     * @param at when the outcome was recorded (DONE, FAILED); null otherwise
     * @param worker the consumer that recorded it (DONE, FAILED) or holds it (PROCESSING); null when QUEUED
     * @param error the handler's exception, as {@code Type: message} (FAILED); null otherwise
     * @param deliveries how many times the entry was delivered to a worker (2 and more: claimed again); 0 when QUEUED
     */
    public record Outcome(String id, Status status, Instant at, String worker, String error, long deliveries) {}

    /** Processes one entry: returning is {@link Status#DONE}, throwing {@link Status#FAILED}. Must be idempotent. */
    @FunctionalInterface
    public interface Handler {
        void handle(Entry entry) throws Exception;
    }

    private final UnifiedJedis redis;
    private final boolean ownsClient;
    private final String name;
    private final String stream;
    private final String results;
    private final String processed;
    private final String outcomePrefix;
    private final int bound;
    private final Duration claimTimeout;
    private final Limiter pace;
    private final String paceKey;
    private final int maxPayloadBytes;
    private final Duration resultTtl;
    private final int resultLength;
    private final QueueScript admit;
    private final QueueScript finish;
    private final List<QueueWorker> workers = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    private AdmissionQueue(Builder b, UnifiedJedis redis, boolean ownsClient) {
        this.redis = redis;
        this.ownsClient = ownsClient;
        this.name = b.name;
        this.stream = "{" + b.prefix + ":queue:" + b.name + "}";
        this.results = stream + ":results";
        this.processed = stream + ":processed";
        this.outcomePrefix = stream + ":outcome:";
        this.bound = b.bound;
        this.claimTimeout = b.claimTimeout;
        this.pace = b.pace;
        this.paceKey = b.paceKey != null ? b.paceKey : b.name;
        this.maxPayloadBytes = b.maxPayloadBytes;
        this.resultTtl = b.resultTtl;
        this.resultLength = b.resultLength;
        this.admit = new QueueScript(ADMIT);
        this.finish = new QueueScript(FINISH);
    }

    /** @param name the queue's name: part of its Redis keys (letters, digits, {@code . _ -}, at most 64) */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /**
     * Offers a payload: admitted into the stream only while it holds fewer than the bound's entries, in one atomic
     * step.
     *
     * @throws IllegalArgumentException when {@code payload} is null or longer than the payload bound
     * @throws StoreException when Redis cannot be reached or fails
     */
    public Admission offer(String payload) {
        if (payload == null) {
            throw new IllegalArgumentException("payload is required");
        }
        int size = payload.getBytes(StandardCharsets.UTF_8).length;
        if (size > maxPayloadBytes) {
            throw new IllegalArgumentException("payload of " + size + " bytes is over the queue's bound of "
                    + maxPayloadBytes);
        }
        List<?> reply = (List<?>) call(() -> admit.run(redis, List.of(stream),
                List.of(Integer.toString(bound), payload)));
        if (number(reply.get(0)) == 1) {
            return new Admission(true, text(reply.get(1)), number(reply.get(2)), Duration.ZERO);
        }
        long length = number(reply.get(1));
        return new Admission(false, null, length, retryAfter(length - bound + 1));
    }

    /**
     * @return how long the fleet's pace needs for {@code places} entries to be processed: the pace policy's interval
     *     between two permits times {@code places}, at least one interval
     */
    private Duration retryAfter(long places) {
        long interval = Math.max(1, pace.policy().intervalMicros());
        return Duration.ofNanos(Math.min(Long.MAX_VALUE / 1_000, Math.max(1, places) * interval) * 1_000);
    }

    /**
     * Starts one worker thread, consumer {@code consumer} of {@code group} (created when missing, from the stream's
     * start, so that entries offered before any worker existed are processed).
     *
     * @param group the consumer group: one per queue
     * @param consumer this worker's name, unique in the fleet (a host and thread, say): outcomes name it
     * @return the worker: {@link Worker#close()} stops it
     * @throws IllegalStateException when the queue is closed
     */
    public Worker consume(String group, String consumer, Handler handler) {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(consumer, "consumer");
        Objects.requireNonNull(handler, "handler");
        if (closed) {
            throw new IllegalStateException("the admission queue " + name + " is closed");
        }
        createGroup(group);
        QueueWorker worker = new QueueWorker(this, group, consumer, handler);
        workers.add(worker);
        worker.start();
        return worker;
    }

    private void createGroup(String group) {
        try {
            redis.xgroupCreate(stream, group, new StreamEntryID(), true);
        } catch (JedisDataException e) {
            if (e.getMessage() == null || !e.getMessage().startsWith("BUSYGROUP")) {
                throw new StoreException("cannot create the consumer group " + group + ": " + e.getMessage(), e);
            }
        } catch (JedisException e) {
            throw new StoreException("cannot create the consumer group " + group + ": " + e.getMessage(), e);
        }
    }

    /** @return the entries in the stream: waiting, and delivered without an outcome yet (at most the bound) */
    public long pending() {
        return call(() -> redis.xlen(stream));
    }

    /** @return the outcomes recorded (DONE and FAILED), since the queue's keys were created */
    public long processed() {
        String n = call(() -> redis.get(processed));
        return n == null ? 0 : Long.parseLong(n);
    }

    /**
     * @param id an id {@link #offer} gave
     * @return what is known of it: its outcome while the result retention keeps it, QUEUED or PROCESSING while it is
     *     in the stream, empty when unknown (never admitted, or its outcome expired)
     */
    public Optional<Outcome> outcome(String id) {
        StreamEntryID entryId;
        try {
            entryId = new StreamEntryID(id);
        } catch (RuntimeException e) {
            return Optional.empty();
        }
        return call(() -> {
            Map<String, String> h = redis.hgetAll(outcomePrefix + entryId);
            if (!h.isEmpty()) {
                String error = h.get("error");
                return Optional.of(new Outcome(entryId.toString(), Status.valueOf(h.get("status")),
                        Instant.ofEpochMilli(Long.parseLong(h.get("at"))), h.get("worker"),
                        error == null || error.isEmpty() ? null : error, Long.parseLong(h.get("deliveries"))));
            }
            if (redis.xrange(stream, entryId, entryId, 1).isEmpty()) {
                return Optional.empty();
            }
            for (var info : redis.xinfoGroups(stream)) {
                List<StreamPendingEntry> p = redis.xpending(stream, info.getName(),
                        XPendingParams.xPendingParams(entryId, entryId, 1));
                if (!p.isEmpty()) {
                    return Optional.of(new Outcome(entryId.toString(), Status.PROCESSING, null,
                            p.get(0).getConsumerName(), null, p.get(0).getDeliveredTimes()));
                }
            }
            return Optional.of(new Outcome(entryId.toString(), Status.QUEUED, null, null, null, 0));
        });
    }

    /**
     * @return this queue as the {@link JobQueue} a front door offers requests to, for a rule in {@code enqueue} mode:
     *     the servlet filter finds it in servlet context attribute {@code io.sluice.queue.<name>} (see
     *     {@code docs/enqueue.md}); an outcome's worker and error are left out (clients see them otherwise)
     */
    public JobQueue asJobQueue() {
        return new JobQueue() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public int maxPayloadBytes() {
                return maxPayloadBytes;
            }

            @Override
            public Offer offer(String payload) {
                Admission a = AdmissionQueue.this.offer(payload);
                return a.accepted() ? Offer.accepted(a.id()) : Offer.refused(a.retryAfter());
            }

            @Override
            public Optional<Job> job(String id) {
                return outcome(id).map(o -> new Job(o.id(), JobQueue.Status.valueOf(o.status().name()), o.at(),
                        o.deliveries()));
            }

            @Override
            public String toString() {
                return "AdmissionQueue " + name;
            }
        };
    }

    /** @return the queue's name */
    public String name() {
        return name;
    }

    /** @return the stream's key; the result stream is this followed by {@code :results} */
    public String streamKey() {
        return stream;
    }

    /** @return the bound N */
    public int bound() {
        return bound;
    }

    /** @return the claim timeout */
    public Duration claimTimeout() {
        return claimTimeout;
    }

    /**
     * Stops every worker this queue started, as {@link Worker#close()} does, within one claim timeout for all of them
     * (then interrupts those still in a handler), and closes the client it opened.
     */
    @Override
    public void close() {
        closed = true;
        for (QueueWorker w : workers) {
            w.stopReading();
        }
        long deadline = System.nanoTime() + claimTimeout.toNanos();      // one grace for all, not one each
        for (QueueWorker w : workers) {
            w.close(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        }
        if (ownsClient) {
            redis.close();
        }
    }

    // ---- for the workers

    UnifiedJedis redis() {
        return redis;
    }

    Limiter pace() {
        return pace;
    }

    String paceKey() {
        return paceKey;
    }

    void forget(QueueWorker worker) {
        workers.remove(worker);
    }

    /** Records an outcome. @return whether it was the first for this entry */
    boolean finish(String group, String id, Status status, String worker, String error) {
        Object r = call(() -> finish.run(redis, List.of(stream, results, outcomePrefix + id, processed),
                List.of(group, id, status.name(), worker, Long.toString(System.currentTimeMillis()),
                        error == null ? "" : error, Long.toString(Math.max(1, resultTtl.toMillis())),
                        Integer.toString(resultLength))));
        return number(r) == 1;
    }

    static Entry entry(StreamEntry e, boolean reclaimed) {
        Map<String, String> fields = e.getFields();
        return new Entry(e.getID().toString(), fields == null ? null : fields.get("payload"),
                Instant.ofEpochMilli(e.getID().getTime()), reclaimed);
    }

    private <T> T call(java.util.function.Supplier<T> call) {
        try {
            return call.get();
        } catch (JedisException e) {
            throw new StoreException("admission queue " + name + ": Redis call failed: " + e.getMessage(), e);
        }
    }

    private static long number(Object o) {
        if (o instanceof Long l) {
            return l;
        }
        return Long.parseLong(text(o));
    }

    private static String text(Object o) {
        return o instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(o);
    }

    /** A running worker. */
    public interface Worker extends AutoCloseable {

        /** @return the consumer name */
        String consumer();

        /** @return the outcomes this worker recorded */
        long finished();

        /** @return whether its thread still runs */
        boolean running();

        /**
         * Stops the worker: it reads nothing more, finishes the entry in hand (waiting at most the claim timeout),
         * else its thread is interrupted and the entry is left for another worker to claim. Returns once the thread
         * has ended, or after a further claim timeout.
         */
        @Override
        void close();
    }

    /** Configures an {@link AdmissionQueue}. */
    public static final class Builder {
        private final String name;
        private String url;
        private UnifiedJedis client;
        private String prefix = RedisStore.DEFAULT_PREFIX;
        private int bound = 1_000;
        private Duration claimTimeout = DEFAULT_CLAIM_TIMEOUT;
        private Limiter pace;
        private String paceKey;
        private int maxPayloadBytes = DEFAULT_MAX_PAYLOAD_BYTES;
        private Duration resultTtl = DEFAULT_RESULT_TTL;
        private int resultLength = DEFAULT_RESULT_LENGTH;
        private Duration timeout = Duration.ofSeconds(2);
        private int poolSize = 16;

        private Builder(String name) {
            if (name == null || !name.matches("[A-Za-z0-9._-]{1,64}")) {
                throw new IllegalArgumentException("queue name: letters, digits, '.', '_', '-', 1 to 64: " + name);
            }
            this.name = name;
        }

        /** Opens (and on close, closes) a client of {@code redis://host:port[/db]} (user and password allowed). */
        public Builder url(String redisUrl) {
            this.url = Objects.requireNonNull(redisUrl, "url");
            return this;
        }

        /**
         * A client the application owns (never closed here). Its workers hold one pooled connection each while they
         * wait for entries ({@code XREADGROUP BLOCK}): size its pool for them.
         */
        public Builder client(UnifiedJedis jedis) {
            this.client = Objects.requireNonNull(jedis, "client");
            return this;
        }

        /** The key prefix ({@value RedisStore#DEFAULT_PREFIX} by default). */
        public Builder prefix(String p) {
            if (p == null || p.isEmpty() || p.contains("{") || p.contains("}")) {
                throw new IllegalArgumentException("prefix: non-empty, without braces: " + p);
            }
            this.prefix = p;
            return this;
        }

        /** N: the stream admits while it holds fewer entries (1 to {@value #MAX_BOUND}; 1,000 by default). */
        public Builder bound(int n) {
            if (n < 1 || n > MAX_BOUND) {
                throw new IllegalArgumentException("bound: 1 to " + MAX_BOUND + ": " + n);
            }
            this.bound = n;
            return this;
        }

        /** How long an entry stays with a worker that does not finish it before another claims it (at least 100 ms). */
        public Builder claimTimeout(Duration t) {
            if (t == null || t.toMillis() < 100) {
                throw new IllegalArgumentException("claim timeout: at least 100 ms: " + t);
            }
            this.claimTimeout = t;
            return this;
        }

        /**
         * The fleet's pace: a limiter of an engine whose store the fleet shares (a {@link RedisStore}); each entry
         * takes one permit of it, under the key {@link #paceKey} (the queue's name by default).
         */
        public Builder pace(Limiter limiter) {
            this.pace = Objects.requireNonNull(limiter, "pace");
            return this;
        }

        /** The key of {@link #pace}'s limiter the workers take permits of (the queue's name by default). */
        public Builder paceKey(String key) {
            this.paceKey = Objects.requireNonNull(key, "paceKey");
            return this;
        }

        /** The largest payload, in UTF-8 bytes (1 to 512 MiB; 64 KiB by default). */
        public Builder maxPayloadBytes(int bytes) {
            if (bytes < 1 || bytes > 512 * 1024 * 1024) {
                throw new IllegalArgumentException("max payload bytes: 1 to 512 MiB: " + bytes);
            }
            this.maxPayloadBytes = bytes;
            return this;
        }

        /** How long each entry's outcome is kept, and how many the result stream keeps (a day, 10,000 by default). */
        public Builder resultRetention(Duration ttl, int length) {
            if (ttl == null || ttl.toMillis() < 1 || length < 1) {
                throw new IllegalArgumentException("result retention: at least 1 ms and 1 entry");
            }
            this.resultTtl = ttl;
            this.resultLength = length;
            return this;
        }

        /** The connect and read timeout of the client {@link #url} opens (2 s by default); blocking reads wait apart. */
        public Builder timeout(Duration t) {
            if (t == null || t.toMillis() < 1) {
                throw new IllegalArgumentException("timeout: at least 1 ms");
            }
            this.timeout = t;
            return this;
        }

        /**
         * The most connections of the client {@link #url} opens (16 by default): each worker holds one while it waits
         * for entries, so give one per worker of this node and a few for {@link AdmissionQueue#offer} and the rest.
         */
        public Builder poolSize(int size) {
            if (size < 1) {
                throw new IllegalArgumentException("pool size: at least 1: " + size);
            }
            this.poolSize = size;
            return this;
        }

        public AdmissionQueue build() {
            if (pace == null) {
                throw new IllegalStateException("the fleet's pace is required: pace(engine.limiter(...))");
            }
            if ((url == null) == (client == null)) {
                throw new IllegalStateException("either url(...) or client(...), one of them");
            }
            if (client != null) {
                return new AdmissionQueue(this, client, false);
            }
            RedisUrl u = RedisUrl.parse("url", url);
            if (!u.standalone()) {
                throw new IllegalArgumentException("url: a standalone redis:// or rediss:// URL; for Sentinel or"
                        + " Cluster, give a client(...)");
            }
            int millis = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
            DefaultJedisClientConfig config = DefaultJedisClientConfig.builder().connectionTimeoutMillis(millis)
                    .socketTimeoutMillis(millis).user(u.user()).password(u.password()).database(u.database())
                    .ssl(u.ssl()).clientName("sluice-queue").build();
            GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
            pool.setMaxTotal(poolSize);
            pool.setMaxIdle(poolSize);
            pool.setMaxWait(timeout);
            pool.setJmxEnabled(false);
            return new AdmissionQueue(this, RedisClient.builder().hostAndPort(u.host(), u.port())
                    .clientConfig(config).poolConfig(pool).build(), true);
        }
    }
}
