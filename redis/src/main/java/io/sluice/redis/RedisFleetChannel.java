package io.sluice.redis;

import io.sluice.core.internal.LogThrottle;
import io.sluice.core.log.LogText;
import io.sluice.core.store.FleetChannel;
import io.sluice.core.store.FleetMessage;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The fleet's messages on Redis pub/sub, channel {@code prefix:fleet} (in a Cluster, published to every node): a
 * penalty ({@code P}), a reset ({@code R}), a change of the shared settings ({@code S}, with an empty rule and key);
 * {@code PUBLISH} through the store's client, and one subscribed connection on a daemon thread of its own
 * ({@link FleetSubscription}), started by the first listener, which subscribes again a second after it lost Redis. A
 * message is text: its kind's letter, then origin, end, the rule's length, the rule and the key, separated by {@code |}
 * (the key last, whatever it holds); one that does not read so (another program's) is ignored.
 *
 * <p>As each subscription is in place (the first, and each after Redis was lost, restarted or out of reach), the
 * listeners are told that the settings may have changed ({@link FleetMessage.Kind#SETTINGS} from origin
 * {@value #CATCH_UP_ORIGIN}, which no node has): a change whose message came before the subscription is read then. A
 * penalty or reset sent meanwhile is not heard (see {@link FleetChannel}: best effort).
 */
final class RedisFleetChannel implements FleetChannel {

    private static final System.Logger LOG = System.getLogger(RedisStore.class.getName());
    /** The origin of the message that tells the listeners to read the settings after a new subscription: none. */
    static final String CATCH_UP_ORIGIN = "";

    private final ReconnectingClient client;
    private final String channel;
    /** The longest {@link #close()} waits for the subscription's thread. */
    private final Duration joinMax;
    private final LogThrottle failures = new LogThrottle(60_000_000);
    /** Every engine on this store listens (a servlet filter and JAX-RS may share one store). */
    private final List<Consumer<FleetMessage>> listeners = new CopyOnWriteArrayList<>();
    /** Made by the first listener; guarded by this. */
    private FleetSubscription subscription;
    /** Guarded by this. */
    private boolean closed;

    /**
     * @param budget the time budget of one call of the store's client: an attempt still connecting ends within twice
     *     it (connect, then the handshake's answer), and {@link #close()} waits that long, and a second more
     */
    RedisFleetChannel(ReconnectingClient client, String prefix, Duration budget) {
        this.client = client;
        this.channel = prefix + ":fleet";
        this.joinMax = budget.multipliedBy(2).plusSeconds(1);
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
     * Adds a listener; the first starts the subscription, and none waits for it: an engine's first answers do
     * ({@link #awaitListening}). Removing a listener ({@link Listening#close()}) keeps the subscription, even with no
     * listener left, until {@link #close()}: a later listener hears at once, and an engine detached on an application's
     * undeploy ({@link io.sluice.core.Engine#detach()}) leaves the store, which the application closes, as it found it.
     */
    @Override
    public Listening listen(Consumer<FleetMessage> listener) {
        // a wrapper of its own: the handle removes this registration even when the same listener listens twice
        Consumer<FleetMessage> own = listener::accept;
        synchronized (this) {
            listeners.add(own);
            if (subscription == null && !closed) {
                subscription = new FleetSubscription(client, channel, this::deliver, this::catchUp, joinMax);
                subscription.start();
            }
        }
        return () -> listeners.remove(own);
    }

    /**
     * Waits while the first attempt to subscribe is under way, at most {@code max}: while Redis has not answered yet,
     * within the store's timeouts, and once it has, until the subscription is confirmed (see
     * {@link FleetSubscription}). Returns at once once the first attempt is over, and before any listener.
     */
    @Override
    public boolean awaitListening(Duration max) {
        FleetSubscription s;
        synchronized (this) {
            s = subscription;
        }
        try {
            return s != null && s.awaitFirst(max);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return s.listening();
        }
    }

    /** @return whether the subscription is in place now (tests) */
    synchronized boolean listening() {
        return subscription != null && subscription.listening();
    }

    /** @return the subscription's thread; null before the first listener (tests) */
    synchronized Thread thread() {
        return subscription == null ? null : subscription.thread();
    }

    /** @return how many listeners listen now (tests) */
    int listenerCount() {
        return listeners.size();
    }

    private void deliver(String text) {
        FleetMessage m = decode(text);
        if (m != null) {
            listeners.forEach(l -> l.accept(m));
        }
    }

    private void catchUp() {
        FleetMessage m = new FleetMessage(FleetMessage.Kind.SETTINGS, CATCH_UP_ORIGIN, "", "", 0);
        listeners.forEach(l -> l.accept(m));
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

    /** Removes every listener, ends the subscription and waits for its thread ({@link FleetSubscription#close()}). */
    @Override
    public void close() {
        FleetSubscription s;
        synchronized (this) {
            closed = true;
            s = subscription;
        }
        listeners.clear();
        if (s != null) {
            s.close();
        }
    }
}
