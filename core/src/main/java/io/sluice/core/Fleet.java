package io.sluice.core;

import io.sluice.core.store.FleetChannel;
import io.sluice.core.store.FleetMessage;
import java.time.Duration;
import java.util.UUID;

/**
 * This node's part in the fleet that shares its store ({@link FleetChannel}): it tells the others of each penalty its
 * box starts and of each reset, and applies theirs: a key another node blocked is blocked here until the same time;
 * a key another node reset is forgotten here too (its penalty, its remembered denials, its leased blocks, its local
 * fallback state); settings another node changed are read again ({@link SettingsWatcher}). Its own messages come
 * back to it and are ignored. {@link #detach()} stops it listening; the channel stays open.
 */
final class Fleet {

    private final FleetChannel channel;
    private final String id = UUID.randomUUID().toString();
    private final KnownDenials denials;
    private final StoreGuard guard;
    /** Another node changed the shared settings. */
    private final Runnable settingsChanged;
    /** This node's place among the channel's listeners. */
    private final FleetChannel.Listening listening;

    Fleet(FleetChannel channel, KnownDenials denials, StoreGuard guard, Runnable settingsChanged) {
        this.channel = channel;
        this.denials = denials;
        this.guard = guard;
        this.settingsChanged = settingsChanged;
        denials.penalties().onStarted((rule, key, until) -> send(FleetMessage.Kind.PENALTY, rule, key, until));
        this.listening = channel.listen(this::heard);
    }

    /**
     * Stops applying the other nodes' messages: removes this node's listener from the channel, which then holds no
     * reference to the engine, without closing the channel (the store's). Idempotent.
     */
    void detach() {
        listening.close();
    }

    /**
     * Waits while the channel's first attempt to listen is under way, at most {@code max}
     * ({@link FleetChannel#awaitListening}).
     */
    void awaitListening(Duration max) {
        channel.awaitListening(max);
    }

    /** Tells the fleet that a key was reset here. */
    void reset(String rule, String key) {
        send(FleetMessage.Kind.RESET, rule, key, 0);
    }

    /** Tells the fleet that the shared settings changed here: read them. */
    void settingsChanged() {
        send(FleetMessage.Kind.SETTINGS, "", "", 0);
    }

    private void send(FleetMessage.Kind kind, String rule, String key, long until) {
        if (rule.length() <= FleetMessage.MAX_TEXT && key.length() <= FleetMessage.MAX_TEXT) {
            channel.publish(new FleetMessage(kind, id, rule, key, until));
        }
    }

    private void heard(FleetMessage m) {
        if (m.origin().equals(id)) {
            return;
        }
        if (m.kind() == FleetMessage.Kind.PENALTY) {
            denials.penalties().impose(m.rule(), m.key(), m.untilMicros());
        } else if (m.kind() == FleetMessage.Kind.SETTINGS) {
            settingsChanged.run();
        } else {
            denials.forget(m.rule(), m.key());
            guard.forgetLocal(m.rule(), m.key());
        }
    }
}
