package io.sluice.redis;

import io.sluice.core.store.StoreException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * A store's Jedis client, and its recovery: a Sentinel's or Cluster's created on the first call that needs it (and on
 * a later one while the servers cannot be reached), and (a standalone URL's) replaced after a {@code READONLY}
 * answer. An application's own client is used as it is, never replaced and never closed.
 */
final class ReconnectingClient {

    /** The store's logger: the name applications configure. */
    private static final System.Logger LOG = System.getLogger(RedisStore.class.getName());

    /** The client; null until {@link #connect} can create it (a Sentinel or Cluster unreachable at start-up). */
    private final AtomicReference<UnifiedJedis> redis;
    private final Supplier<UnifiedJedis> connect;
    /** Whether a thread is creating the client now: the others do not wait for it (see {@link #get()}). */
    private final AtomicBoolean connecting = new AtomicBoolean();
    /** Whether a client was created, or the first failure to create one was logged: logged once, as it is new. */
    private volatile boolean told;
    /** Whether the first attempt to create the client is over: calls wait for that one only. Guarded by this. */
    private boolean firstAttemptOver;
    private volatile boolean closed;
    /** A standalone URL's client: on {@code READONLY} it is replaced (see {@link #dropIfReadOnly}). */
    private final boolean reconnectsOnReadOnly;
    private final boolean owned;
    private final boolean cluster;
    private final String description;

    /**
     * A client the store opens, and closes.
     *
     * @param redis the client; null to create it on the first call that needs it
     * @param connect creates the client when {@code redis} is null, on the first call that needs it
     * @param reconnectsOnReadOnly a standalone URL's client, replaced on {@code READONLY}
     * @param description the store as logs and messages show it
     */
    ReconnectingClient(UnifiedJedis redis, Supplier<UnifiedJedis> connect, boolean cluster,
            boolean reconnectsOnReadOnly, String description) {
        this(redis, connect, cluster, reconnectsOnReadOnly, true, description);
    }

    private ReconnectingClient(UnifiedJedis redis, Supplier<UnifiedJedis> connect, boolean cluster,
            boolean reconnectsOnReadOnly, boolean owned, String description) {
        this.redis = new AtomicReference<>(redis);
        this.firstAttemptOver = redis != null;
        this.connect = connect;
        this.cluster = cluster;
        this.reconnectsOnReadOnly = reconnectsOnReadOnly;
        this.owned = owned;
        this.description = description;
    }

    /** A client the application owns: it stays open when the store closes. */
    static ReconnectingClient of(UnifiedJedis application) {
        return new ReconnectingClient(application, null, isCluster(application), false, false,
                "application client " + application.getClass().getSimpleName());
    }

    /** Jedis 8's cluster client, or the {@code JedisCluster} of earlier versions that many applications still hold. */
    @SuppressWarnings("deprecation")
    private static boolean isCluster(UnifiedJedis redis) {
        return redis instanceof RedisClusterClient || redis instanceof JedisCluster;
    }

    /** @return whether the client is a Cluster's, whose calls go to the master of their keys' hash slot */
    boolean cluster() {
        return cluster;
    }

    /** @return the store as logs and messages show it: its URL without the password, or the client's kind */
    String description() {
        return description;
    }

    /**
     * @return the client, created now if it was not yet (a Sentinel's or Cluster's, which connects when created); a
     *     call while another thread creates it waits for the first attempt, and fails at once during a later one
     * @throws StoreException while it still cannot be reached (the engine's breaker spaces the attempts out); the
     *     first such failure is logged, once
     */
    UnifiedJedis get() {
        UnifiedJedis r = redis.get();
        if (r != null) {
            return r;
        }
        // one thread connects; the others fail at once instead of each waiting for a connect of its own in turn,
        // which while the servers are down would hold every request for many times its budget; only the first
        // attempt is waited for (its timeouts bound it), so that the calls of a store just built are not refused
        if (closed || !connecting.compareAndSet(false, true)) {
            r = closed ? null : afterFirstAttempt();
            if (r != null) {
                return r;
            }
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
            told = true;
            return r;
        } catch (JedisException e) {
            if (!told) {
                told = true;
                LOG.log(System.Logger.Level.WARNING, "the Redis store (" + description + ") cannot be reached; requests"
                        + " fall back as their rules' on-store-failure says until it can: " + e.getMessage());
            }
            throw new StoreException("cannot reach the Redis store (" + description + "): " + e.getMessage(), e);
        } finally {
            connecting.set(false);
            synchronized (this) {
                firstAttemptOver = true;
                notifyAll();
            }
        }
    }

    /** @return the client once the first attempt to create it is over (at once after it); null when it failed */
    private synchronized UnifiedJedis afterFirstAttempt() {
        while (!firstAttemptOver && !closed) {
            try {
                wait();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }
        return redis.get();
    }

    /**
     * A {@code READONLY} answer: the server this client is connected to is a replica now. Behind a name that a
     * failover moves to the new master (a managed Redis's primary endpoint), the pooled connections would stay on the
     * demoted node and every call would fail until the application restarted. So the client is closed and a new one,
     * whose connections resolve the name anew, is created on the next call. An application's own client is its own
     * to manage, and a Cluster client follows its masters itself.
     *
     * @param seen the client that answered
     */
    void dropIfReadOnly(RuntimeException e, UnifiedJedis seen) {
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

    /** Closes the client if the store opened it; one created after this is closed by its creator (see {@link #get}). */
    void close() {
        closed = true;
        synchronized (this) {
            notifyAll();
        }
        UnifiedJedis r = redis.get();
        if (owned && r != null) {
            r.close();
        }
    }
}
