package io.sluice.redis;

import io.sluice.core.internal.LogThrottle;
import io.sluice.core.log.LogText;
import io.sluice.core.store.FleetChannel;
import io.sluice.core.store.FleetMessage;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import redis.clients.jedis.JedisPubSub;

/**
 * The fleet's messages on Redis pub/sub, channel {@code prefix:fleet} (in a Cluster, published to every node): a
 * penalty ({@code P}), a reset ({@code R}), a change of the shared settings ({@code S}, with an empty rule and key);
 * {@code PUBLISH} through the store's client, and one subscribed connection on a daemon thread of its own, which
 * subscribes again a second after it lost Redis. A message is text: its kind's letter, then origin, end, the rule's
 * length, the rule and the key, separated by {@code |} (the key last, whatever it holds); one that does not read so
 * (another program's) is ignored.
 */
final class RedisFleetChannel implements FleetChannel {

    private static final System.Logger LOG = System.getLogger(RedisStore.class.getName());
    private static final long RETRY_MILLIS = 1_000;
    /** The longest the first listener waits for the subscription, so that it hears what is sent after: {@value} ms. */
    private static final long SUBSCRIBE_WAIT_MILLIS = 2_000;

    private final ReconnectingClient client;
    private final String channel;
    private final LogThrottle failures = new LogThrottle(60_000_000);
    /** Every engine on this store listens (a servlet filter and JAX-RS may share one store). */
    private final List<Consumer<FleetMessage>> listeners = new CopyOnWriteArrayList<>();
    private volatile boolean closed;
    private volatile JedisPubSub subscription;
    /** Counted down once the first subscription is in place. */
    private final CountDownLatch subscribed = new CountDownLatch(1);
    private Thread listening;

    RedisFleetChannel(ReconnectingClient client, String prefix) {
        this.client = client;
        this.channel = prefix + ":fleet";
    }

    @Override
    public void publish(FleetMessage m) {
        try {
            client.get().publish(channel, encode(m));
        } catch (RuntimeException e) {
            String what = m.kind() == FleetMessage.Kind.SETTINGS ? "a change of the shared settings"
                    : "a " + m.kind().name().toLowerCase(Locale.ROOT) + " of rule " + LogText.safe(m.rule());
            failures.log(LOG, Level.WARNING, System.currentTimeMillis() * 1_000, "Sluice could not tell the other nodes"
                    + " of " + what + ": " + LogText.safe(e.getMessage()), null);
        }
    }

    /**
     * Adds a listener; the first starts the subscription and waits for it (at most {@value #SUBSCRIBE_WAIT_MILLIS} ms,
     * at start-up: with Redis down it goes on, and the thread subscribes when Redis is back), so that an engine hears
     * every message sent after it was built. Removing a listener ({@link Listening#close()}) keeps the subscription,
     * even with no listener left, until {@link #close()}: a later listener hears at once, and an engine detached on an
     * application's undeploy ({@link io.sluice.core.Engine#detach()}) leaves the store, which the application closes,
     * as it found it.
     */
    @Override
    public Listening listen(Consumer<FleetMessage> listener) {
        // a wrapper of its own: the handle removes this registration even when the same listener listens twice
        Consumer<FleetMessage> own = listener::accept;
        boolean first;
        synchronized (this) {
            listeners.add(own);
            first = listening == null;
            if (first) {
                listening = new Thread(this::subscribe, "sluice-fleet");
                listening.setDaemon(true);
                listening.start();
            }
        }
        if (first) {
            try {
                subscribed.await(SUBSCRIBE_WAIT_MILLIS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return () -> listeners.remove(own);
    }

    /** @return how many listeners listen now (tests) */
    int listenerCount() {
        return listeners.size();
    }

    private void subscribe() {
        while (!closed) {
            JedisPubSub s = new JedisPubSub() {
                @Override
                public void onSubscribe(String to, int subscriptions) {
                    subscribed.countDown();
                }

                @Override
                public void onMessage(String from, String message) {
                    FleetMessage m = decode(message);
                    if (m != null) {
                        listeners.forEach(l -> l.accept(m));
                    }
                }
            };
            subscription = s;
            try {
                client.get().subscribe(s, channel);
            } catch (RuntimeException e) {
                if (!closed) {
                    failures.log(LOG, Level.WARNING, System.currentTimeMillis() * 1_000, "Sluice lost the channel of"
                            + " the other nodes' penalties, resets and settings changes: "
                            + LogText.safe(e.getMessage()) + "; subscribing again", null);
                }
            }
            pause();
        }
    }

    private void pause() {
        try {
            Thread.sleep(RETRY_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closed = true;
        }
    }

    /** @return the message as text: {@code P} (penalty), {@code R} (reset) or {@code S} (settings), then the rest */
    static String encode(FleetMessage m) {
        return letter(m.kind()) + "|" + m.origin() + "|" + m.untilMicros() + "|" + m.rule().length() + "|" + m.rule()
                + m.key();
    }

    private static String letter(FleetMessage.Kind kind) {
        return switch (kind) {
            case PENALTY -> "P";
            case RESET -> "R";
            case SETTINGS -> "S";
        };
    }

    /** @return the message, or null when {@code text} is none of ours */
    static FleetMessage decode(String text) {
        try {
            String[] head = text.split("\\|", 5);
            FleetMessage.Kind kind = head.length < 5 ? null : switch (head[0]) {
                case "P" -> FleetMessage.Kind.PENALTY;
                case "R" -> FleetMessage.Kind.RESET;
                case "S" -> FleetMessage.Kind.SETTINGS;
                default -> null;
            };
            if (kind == null) {
                return null;
            }
            int ruleLength = Integer.parseInt(head[3]);
            String rest = head[4];
            // a penalty or a reset names a rule; a change of the settings, none
            int shortest = kind == FleetMessage.Kind.SETTINGS ? 0 : 1;
            if (ruleLength < shortest || ruleLength > rest.length()
                    || rest.length() - ruleLength > FleetMessage.MAX_TEXT || ruleLength > FleetMessage.MAX_TEXT) {
                return null;
            }
            return new FleetMessage(kind, head[1], rest.substring(0, ruleLength), rest.substring(ruleLength),
                    Long.parseLong(head[2]));
        } catch (RuntimeException e) {
            return null;
        }
    }

    @Override
    public void close() {
        closed = true;
        listeners.clear();
        JedisPubSub s = subscription;
        if (s != null && s.isSubscribed()) {
            try {
                s.unsubscribe();
            } catch (RuntimeException e) {
                // the connection is gone already: nothing to unsubscribe
            }
        }
        Thread t;
        synchronized (this) {
            t = listening;
        }
        if (t != null) {
            t.interrupt();
        }
    }
}
