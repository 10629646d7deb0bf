package io.sluice.redis;

import io.sluice.core.internal.LogThrottle;
import io.sluice.core.log.LogText;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import redis.clients.jedis.Connection;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.util.Pool;

/**
 * The fleet channel's subscription ({@link RedisFleetChannel}): one connection of its own, subscribed to the channel,
 * on one daemon thread, {@code sluice-fleet}, which subscribes again a second after it lost Redis or could not reach
 * it.
 *
 * <p><b>Attempts.</b> Each attempt takes a connection of its own from the store's pool (connect and handshake, within
 * the store's timeouts), sends {@code PING}, and only once Redis has answered sends {@code SUBSCRIBE}. So an attempt
 * is under way in two phases: while Redis has not answered yet, which the store's timeouts bound (a Redis that does not
 * answer fails it within them), and once it has, waiting for the subscription to be confirmed, which a Redis that
 * answers confirms at once. {@link #awaitFirst} waits for the first attempt through both: an engine's first answers
 * wait so for a store that answers, and never longer than a call to it takes for one that does not.
 *
 * <p><b>Stopping.</b> {@link #close()} cuts the connection in use (closes its socket), whatever Redis does: up, down,
 * paused ({@code CLIENT PAUSE}) or never reached; a subscription, a {@code PING} or an unsubscribe left waiting for an
 * answer that would never come ends at once. An attempt still connecting (the pool creating the connection) has no
 * socket to cut yet: it ends within the store's timeouts. Then it waits for the thread to end (at most
 * {@code joinMax}), so that a container undeploying the application finds no thread of it left.
 *
 * <p>An application's client of a kind whose pool cannot be reached (another {@link UnifiedJedis} than a
 * {@link RedisClient}, {@link RedisSentinelClient} or Cluster client) subscribes through the client itself; its
 * subscription is then ended by an {@code UNSUBSCRIBE} only, which a paused Redis answers once it runs again.
 */
final class FleetSubscription {

    private static final System.Logger LOG = System.getLogger(RedisStore.class.getName());
    private static final long RETRY_MILLIS = 1_000;

    /** Where an attempt stands. */
    private enum State {
        /** Taking a connection and waiting for Redis's first answer: bounded by the store's timeouts. */
        CONNECTING,
        /** Redis answered; the subscription is being confirmed. */
        SUBSCRIBING,
        /** Subscribed: every message sent from now on is heard. */
        LISTENING,
        /** The last attempt failed, or the subscription was lost: the next one comes a second later. */
        DOWN
    }

    private final ReconnectingClient client;
    private final String channel;
    private final Consumer<String> messages;
    /** Told on the thread as each subscription is in place, before any waiter: messages sent before it were missed. */
    private final Runnable subscribed;
    private final Duration joinMax;
    private final LogThrottle failures = new LogThrottle(60_000_000);
    private final Thread thread;
    /** Guarded by this. */
    private State state = State.CONNECTING;
    /** Whether the first attempt is over (subscribed, or failed). Guarded by this. */
    private boolean firstOver;
    /** Guarded by this. */
    private boolean closed;
    /** The connection of the attempt under way, for {@link #close()} to cut; null when none. Guarded by this. */
    private Connection held;
    /** The subscription of the attempt under way; null when none. Guarded by this. */
    private JedisPubSub subscription;

    /**
     * @param messages receives each message's text, on the thread
     * @param subscribed called on the thread as each subscription is in place, before {@link #awaitFirst} returns
     * @param joinMax the longest {@link #close()} waits for the thread: longer than an attempt that is still connecting
     *     takes to fail (twice the store's timeout: connect, then the handshake's answer)
     */
    FleetSubscription(ReconnectingClient client, String channel, Consumer<String> messages, Runnable subscribed,
            Duration joinMax) {
        this.client = client;
        this.channel = channel;
        this.messages = messages;
        this.subscribed = subscribed;
        this.joinMax = joinMax;
        this.thread = new Thread(this::run, "sluice-fleet");
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /**
     * Waits while the first attempt is under way, at most {@code max}; returns at once once it is over.
     *
     * @return whether the subscription is in place
     */
    synchronized boolean awaitFirst(Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        for (long left = max.toNanos(); !firstOver && !closed && left > 0; left = deadline - System.nanoTime()) {
            wait(Math.max(1, left / 1_000_000));
        }
        return state == State.LISTENING && !closed;
    }

    /** @return whether the subscription is in place now */
    synchronized boolean listening() {
        return state == State.LISTENING && !closed;
    }

    /** @return the thread (tests) */
    Thread thread() {
        return thread;
    }

    private void run() {
        while (!isClosed()) {
            try {
                attempt();
            } catch (RuntimeException e) {
                if (!isClosed()) {
                    failures.log(LOG, Level.WARNING, System.currentTimeMillis() * 1_000, "Sluice lost the channel of"
                            + " the other nodes' penalties, resets and settings changes: "
                            + LogText.safe(e.getMessage()) + "; subscribing again", null);
                }
            }
            moveTo(State.DOWN);
            pause();
        }
    }

    /** One attempt: a connection, {@code PING}, then the subscription, until it is lost or closed. */
    private void attempt() {
        moveTo(State.CONNECTING);
        UnifiedJedis redis = client.get();
        JedisPubSub s = pubSub();
        Connection own = borrow(redis);
        if (own == null) {
            try {
                redis.ping();
                if (subscribing(s)) {
                    redis.subscribe(s, channel);
                }
            } finally {
                release(null);
            }
            return;
        }
        try {
            if (hold(own)) {
                own.ping();
                if (subscribing(s)) {
                    s.proceed(own, channel);
                }
            }
        } finally {
            release(own);
            own.close();            // back to the pool, or destroyed when it broke
        }
    }

    private JedisPubSub pubSub() {
        return new JedisPubSub() {
            @Override
            public void onSubscribe(String to, int subscriptions) {
                subscribed.run();
                moveTo(State.LISTENING);
            }

            @Override
            public void onMessage(String from, String message) {
                messages.accept(message);
            }
        };
    }

    /** @return a connection of the client's pool for this subscription alone; null when its kind gives none */
    @SuppressWarnings("deprecation")
    static Connection borrow(UnifiedJedis redis) {
        if (redis instanceof RedisClient standalone) {
            return standalone.getPool().getResource();
        }
        if (redis instanceof RedisSentinelClient sentinel) {
            return first(sentinel.getPrimaryNodesConnectionMap().values().iterator());
        }
        if (redis instanceof RedisClusterClient cluster) {     // pub/sub reaches every node of a Cluster
            return first(cluster.getClusterNodes().values().iterator());
        }
        if (redis instanceof JedisCluster cluster) {
            return first(cluster.getClusterNodes().values().iterator());
        }
        return null;
    }

    private static Connection first(Iterator<? extends Pool<Connection>> pools) {
        return pools.hasNext() ? pools.next().getResource() : null;
    }

    private synchronized boolean isClosed() {
        return closed;
    }

    private synchronized void moveTo(State next) {
        state = next;
        firstOver |= next == State.LISTENING || next == State.DOWN;
        notifyAll();
    }

    /** @return false when closed meanwhile: the connection is not used */
    private synchronized boolean hold(Connection c) {
        held = c;
        return !closed;
    }

    private synchronized void release(Connection c) {
        if (held == c) {
            held = null;
        }
        subscription = null;
    }

    /** Redis answered: the subscription comes next, unless closed meanwhile. */
    private synchronized boolean subscribing(JedisPubSub s) {
        if (closed) {
            return false;
        }
        subscription = s;
        state = State.SUBSCRIBING;
        notifyAll();
        return true;
    }

    /** Waits {@code RETRY_MILLIS} before the next attempt, or less: {@link #close()} wakes it. */
    private synchronized void pause() {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RETRY_MILLIS);
        try {
            for (long left = RETRY_MILLIS; !closed && left > 0;
                    left = TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime())) {
                wait(left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();     // the loop sees it closed
        }
    }

    /**
     * Cuts the connection in use and waits for the thread to end (at most {@code joinMax}); an attempt still
     * connecting ends within the store's timeouts, and is logged when it did not within the wait.
     */
    void close() {
        Connection c;
        JedisPubSub s;
        synchronized (this) {
            closed = true;
            c = held;
            s = subscription;
            notifyAll();
        }
        if (c != null) {
            try {
                c.forceDisconnect();        // the thread's read fails at once, whatever Redis does
            } catch (IOException | RuntimeException e) {
                // closed already
            }
        } else if (s != null && s.isSubscribed()) {
            try {
                s.unsubscribe();            // an application's client of another kind: Redis's answer ends it
            } catch (RuntimeException e) {
                // the connection is gone already: nothing to unsubscribe
            }
        }
        thread.interrupt();                 // its pause between attempts
        join();
    }

    private void join() {
        if (thread == Thread.currentThread()) {
            return;                         // a listener closing the store from a message: it ends after
        }
        try {
            thread.join(joinMax.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            LOG.log(Level.WARNING, "Sluice: thread sluice-fleet is still waiting for Redis (" + client.description()
                    + ") after " + joinMax.toMillis() + " ms; it ends when its call times out");
        }
    }
}
