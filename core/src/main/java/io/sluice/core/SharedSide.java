package io.sluice.core;

import io.sluice.core.store.SharedSettings;
import io.sluice.core.store.Store;
import io.sluice.core.time.TimeSource;
import java.time.Duration;

/**
 * The engine's side that faces the other nodes of its store: the settings they share ({@link Operations},
 * {@link Overrides}), the thread that reads the changes they make ({@link SettingsWatcher}; none when no other node
 * can make any), and this node's part in their {@link Fleet} (none on a store of this node alone). Operations tell
 * the fleet of a change, and the fleet tells the watcher of another node's, so the two are wired here.
 *
 * <p><b>Start-up.</b> Building an engine never waits on its store: a store that does not answer (down, unreachable,
 * paused) must not hold up the application's start, which then answers by each rule's failure mode. So the build only
 * starts what needs the store: the first read of the shared settings (the overrides and the rules document in the
 * store), on the watcher's thread, and the fleet's subscription, on the channel's. The engine's first answers wait for
 * them ({@link #awaitStart()}), so that with a store that answers, a node applies the overrides in the store and hears
 * every fleet message sent after it first answered, as if it had read and subscribed at build. They wait only while
 * those are under way: a read is one store call, which the store's timeout bounds, and the channel waits no longer
 * than a call to it takes before its store has answered once
 * ({@link io.sluice.core.store.FleetChannel#awaitListening}); at most {@value #START_MILLIS} ms in all. Then no answer waits again: a read that failed is done again by the
 * watcher's periodic check, and the channel subscribes on its own when the store is back.
 */
final class SharedSide {

    /** The longest the first answers wait for the first read and the fleet's subscription: {@value} ms. */
    static final long START_MILLIS = 2_000;

    private final Overrides overrides;
    /** Rules document, overrides, resets and audit trail; watched when other nodes share them. */
    private final Operations operations;
    /** Reads settings other nodes change; null when none can. */
    private final SettingsWatcher watcher;
    /** Penalties and resets shared with the other nodes of a shared store; null on a store of this node alone. */
    private final Fleet fleet;
    /** Whether the first answers have waited: the others do not. */
    private volatile boolean started;

    SharedSide(Store store, Engine engine, TimeSource time, KnownDenials denials, StoreGuard guard,
            Duration settingsInterval) {
        SharedSettings settings = store.settings() != null ? store.settings() : SharedSettings.local();
        this.overrides = new Overrides(settings, time);
        Fleet[] told = new Fleet[1];       // the fleet is made after the operations that tell it of their changes
        this.operations = new Operations(settings, overrides, engine, time, () -> {
            if (told[0] != null) {
                told[0].settingsChanged();
            }
        });
        this.watcher = settings.shared() ? new SettingsWatcher(operations, settingsInterval) : null;
        this.fleet = store.fleet() != null
                ? new Fleet(store.fleet(), denials, guard, watcher != null ? watcher::changed : () -> {}) : null;
        told[0] = fleet;
        if (watcher != null) {
            operations.readOn(watcher::changed);
            watcher.changed();              // the overrides in the store, before the first answer (awaitStart)
        } else {
            operations.refreshLogged();     // this node's own: at once
            started = fleet == null;
        }
    }

    /**
     * Waits, on the engine's first answers, for the first read of the shared settings (and of the rules document, when
     * a front door asked for it before) and the fleet's first attempt to subscribe; returns at once afterwards.
     */
    void awaitStart() {
        if (started) {
            return;
        }
        long deadline = System.nanoTime() + START_MILLIS * 1_000_000;
        if (fleet != null) {        // first: a channel may ask for a read as it subscribes, which is waited for below
            fleet.awaitListening(Duration.ofMillis(START_MILLIS));
        }
        if (watcher != null) {
            watcher.awaitReads(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        }
        started = true;
    }

    /** @return the per-key overrides in force */
    Overrides overrides() {
        return overrides;
    }

    /** @return the operator's handle ({@link Engine#operations()}) */
    Operations operations() {
        return operations;
    }

    /** Tells the other nodes, if any, that {@code key} was reset under {@code rule}. */
    void reset(String rule, String key) {
        if (fleet != null) {
            fleet.reset(rule, key);
        }
    }

    /** Stops the thread that reads the settings other nodes change, and waits for it to end; idempotent. */
    void stopWatching() {
        if (watcher != null) {
            watcher.close();
        }
    }

    /** Removes this node's listener from the fleet's channel; idempotent. */
    void leaveFleet() {
        if (fleet != null) {
            fleet.detach();
        }
    }
}
