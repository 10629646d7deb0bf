package io.sluice.redis;

import io.sluice.core.Limiter;
import io.sluice.core.store.JobQueue;
import io.sluice.core.store.StoreException;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import redis.clients.jedis.UnifiedJedis;

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
 * timeout. A worker waiting for its permit refreshes its entry's idle time every third of the claim timeout
 * ({@code XCLAIM ... JUSTID}), so that a slow pace alone does not hand the entry to another.
 *
 * <p><b>Poison entries.</b> An entry whose handler kills its worker, or hangs past the claim timeout, every time would
 * be claimed forever: a worker that gets an entry delivered more than {@link Builder#maxDeliveries max deliveries}
 * times ({@code XPENDING}'s count, as {@link Outcome#deliveries()} reports it) does not run the handler (nor take a
 * permit) but records it {@link Status#FAILED}, with the error {@code gave up after N deliveries} (N that count), as a
 * finished entry's outcome is recorded: acknowledged, deleted, in {@link #outcome} and the result stream.
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
 * <p><b>Keys</b>, in one Cluster hash slot: {@code {prefix:queue:name}} (the stream), and after it {@code :results}
 * (capped result stream), {@code :outcome:<id>} (with a TTL) and {@code :processed} (the count of outcomes).
 *
 * <p><b>Limits</b>: the bound N (1 to 10,000,000); the claim timeout (at least 100 ms: it must exceed a handler's
 * running time, or entries are processed twice); the deliveries of an entry ({@link Builder#maxDeliveries}, 5 by
 * default: the handler runs at most that many times for it); the payload's size ({@link Builder#maxPayloadBytes}, 64
 * KiB by default, UTF-8); outcomes kept for a day and the last 10,000 in the result stream by default. One consumer
 * group processes a queue (an entry is deleted once its outcome is recorded). Needs Redis 6.2 or later
 * ({@code XAUTOCLAIM}).
 *
 * <p><b>Faults.</b> Nothing here needs Redis to start: a worker's thread creates its group, and while Redis cannot be
 * reached tries again, 50 ms to 2 s apart, with one WARNING per outage and one INFO when Redis answers; entries wait in
 * Redis, and {@link #offer} throws {@link StoreException}. On {@code NOGROUP} (Redis restarted empty or from an older
 * snapshot, a replica without the group promoted) the worker creates it again, from the stream's start. An empty
 * restart loses the waiting entries and the outcomes ({@link #outcome}: empty); give the queue's Redis persistence.
 *
 * <p>Thread-safe. {@link #close()} stops every worker it started (each finishes the entry in hand, within the claim
 * timeout, else is interrupted; a Redis call under way returns first, on a {@link Builder#url} client within its
 * timeout even from a hung Redis) and closes the client it opened; an application's client stays open.
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
    /** How many times an entry is delivered, by default, before a worker gives up on it: 5. */
    public static final int DEFAULT_MAX_DELIVERIES = 5;
    /** The largest bound. */
    public static final int MAX_BOUND = 10_000_000;

    /** What became of an entry. */
    public enum Status {
        /** In the stream, not yet delivered to a worker. */
        QUEUED,
        /** Delivered to a worker ({@link Outcome#worker()}), no outcome yet. */
        PROCESSING,
        /** The handler returned. */
        DONE,
        /** The handler threw, or the workers gave up on it ({@link Builder#maxDeliveries}): {@link Outcome#error()}. */
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
     * @param error the handler's exception, as {@code Type: message}, or {@code gave up after N deliveries} (FAILED);
     *     null otherwise
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
    private final int bound;
    private final Duration claimTimeout;
    private final QueuePace pace;
    private final int maxPayloadBytes;
    private final int maxDeliveries;
    private final QueueCommands commands;
    private final QueueWorkers workers = new QueueWorkers();
    private final QueueWorker.Setup setup;
    private volatile boolean closed;

    private AdmissionQueue(Builder b, UnifiedJedis redis, boolean ownsClient) {
        QueueKeys keys = QueueKeys.of(b.prefix, b.name);
        this.redis = redis;
        this.ownsClient = ownsClient;
        this.name = b.name;
        this.stream = keys.stream();
        this.bound = b.bound;
        this.claimTimeout = b.claimTimeout;
        this.pace = new QueuePace(b.pace, b.paceKey != null ? b.paceKey : b.name);
        this.maxPayloadBytes = b.maxPayloadBytes;
        this.maxDeliveries = b.maxDeliveries;
        this.commands = new QueueCommands(redis, b.name, keys, b.resultTtl, b.resultLength);
        this.setup = new QueueWorker.Setup(name, commands, pace, workers, claimTimeout, b.timeout, maxDeliveries);
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
        return commands.admit(bound, QueueArguments.payload(payload, maxPayloadBytes), pace::retryAfter);
    }

    /**
     * Starts one worker thread, consumer {@code consumer} of {@code group}. The thread creates the group when missing,
     * from the stream's start (so that entries offered before any worker existed are processed), and again when Redis
     * lost it; no call to Redis is made here, so a Redis down at start-up delays the work, not the start (see Faults).
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
        QueueWorker worker = new QueueWorker(setup, group, consumer, handler);
        workers.start(worker);
        return worker;
    }

    /** @return the entries in the stream: waiting, and delivered without an outcome yet (at most the bound) */
    public long pending() {
        return commands.length();
    }

    /** @return the outcomes recorded (DONE and FAILED), since the queue's keys were created */
    public long processed() {
        return commands.processed();
    }

    /**
     * @param id an id {@link #offer} gave
     * @return what is known of it: its outcome while the result retention keeps it, QUEUED or PROCESSING while it is
     *     in the stream, empty when unknown (never admitted, or its outcome expired)
     */
    public Optional<Outcome> outcome(String id) {
        return commands.outcome(id);
    }

    /**
     * @return this queue as the {@link JobQueue} a front door offers requests to, for a rule in {@code enqueue} mode:
     *     the servlet filter finds it in servlet context attribute {@code io.sluice.queue.<name>} (see
     *     {@code docs/enqueue.md}); an outcome's worker and error are left out (clients see them otherwise)
     */
    public JobQueue asJobQueue() {
        return new AdmissionJobQueue(this, maxPayloadBytes);
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

    /** @return the most deliveries of an entry before a worker gives up on it */
    public int maxDeliveries() {
        return maxDeliveries;
    }

    /**
     * Stops every worker this queue started, as {@link Worker#close()} does, within one claim timeout for all of them
     * (then interrupts those still in a handler), and closes the client it opened.
     */
    @Override
    public void close() {
        closed = true;
        workers.close(claimTimeout);
        if (ownsClient) {
            redis.close();
        }
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
         * else its thread is interrupted and the entry is left for another worker to claim; a pause between attempts
         * on Redis ends at once. Returns once the thread has ended, or after a further claim timeout.
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
        private int maxDeliveries = DEFAULT_MAX_DELIVERIES;
        private Duration resultTtl = DEFAULT_RESULT_TTL;
        private int resultLength = DEFAULT_RESULT_LENGTH;
        private Duration timeout = Duration.ofSeconds(2);
        private int poolSize = 16;

        private Builder(String name) {
            this.name = QueueArguments.name(name);
        }

        /** Opens (and on close, closes) a client of {@code redis://host:port[/db]} (user and password allowed). */
        public Builder url(String redisUrl) {
            this.url = Objects.requireNonNull(redisUrl, "url");
            return this;
        }

        /**
         * A client the application owns (never closed here). Its workers hold one pooled connection each while they
         * wait for entries ({@code XREADGROUP BLOCK}): size its pool for them, and give it a blocking socket timeout
         * ({@code blockingSocketTimeoutMillis}, 0 by default: forever), or a paused Redis holds a closing worker.
         */
        public Builder client(UnifiedJedis jedis) {
            this.client = Objects.requireNonNull(jedis, "client");
            return this;
        }

        /** The key prefix ({@value RedisStore#DEFAULT_PREFIX} by default). */
        public Builder prefix(String p) {
            this.prefix = QueueArguments.prefix(p);
            return this;
        }

        /** N: the stream admits while it holds fewer entries (1 to {@value #MAX_BOUND}; 1,000 by default). */
        public Builder bound(int n) {
            this.bound = QueueArguments.bound(n);
            return this;
        }

        /** How long an entry stays with a worker that does not finish it before another claims it (at least 100 ms). */
        public Builder claimTimeout(Duration t) {
            this.claimTimeout = QueueArguments.claimTimeout(t);
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

        /**
         * The most times an entry is delivered to a worker (at least 1; {@value #DEFAULT_MAX_DELIVERIES} by default):
         * a worker that reads or claims an entry already delivered more often, its earlier workers having died or hung
         * past the claim timeout, does not run the handler but records it {@link Status#FAILED} with the error
         * {@code gave up after N deliveries}. 1: an entry a worker does not finish is never run again.
         */
        public Builder maxDeliveries(int n) {
            this.maxDeliveries = QueueArguments.maxDeliveries(n);
            return this;
        }

        /** The largest payload, in UTF-8 bytes (1 to 512 MiB; 64 KiB by default). */
        public Builder maxPayloadBytes(int bytes) {
            this.maxPayloadBytes = QueueArguments.maxPayloadBytes(bytes);
            return this;
        }

        /** How long each entry's outcome is kept, and how many the result stream keeps (a day, 10,000 by default). */
        public Builder resultRetention(Duration ttl, int length) {
            QueueArguments.resultRetention(ttl, length);
            this.resultTtl = ttl;
            this.resultLength = length;
            return this;
        }

        /**
         * The connect and read timeout of the client {@link #url} opens (2 s by default); a worker's blocking read
         * waits its block time (at most 500 ms) and this.
         */
        public Builder timeout(Duration t) {
            this.timeout = QueueArguments.timeout(t);
            return this;
        }

        /**
         * The most connections of the client {@link #url} opens (16 by default): each worker holds one while it waits
         * for entries, so give one per worker of this node and a few for {@link AdmissionQueue#offer} and the rest.
         */
        public Builder poolSize(int size) {
            this.poolSize = QueueArguments.poolSize(size);
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
            return new AdmissionQueue(this, QueueClients.open(url, timeout, poolSize), true);
        }
    }
}
