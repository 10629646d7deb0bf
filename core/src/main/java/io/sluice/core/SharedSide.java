package io.sluice.core;

import io.sluice.core.store.SharedSettings;
import io.sluice.core.store.Store;
import io.sluice.core.time.TimeSource;
import java.time.Duration;

/**
 * The engine's side that faces the other nodes of its store: the settings they share ({@link Operations},
 * {@link Overrides}), the thread that reads the changes they make ({@link SettingsWatcher}; none when no other node
 * can make any), and this node's part in their {@link Fleet} (none on a store of this node alone). Operations tell
 * the fleet of a change, and the fleet tells the watcher of another node's, so the two are wired here, and the
 * overrides in the store are read before the engine decides its first request.
 */
final class SharedSide {

    private final Overrides overrides;
    /** Rules document, overrides, resets and audit trail; watched when other nodes share them. */
    private final Operations operations;
    /** Reads settings other nodes change; null when none can. */
    private final SettingsWatcher watcher;
    /** Penalties and resets shared with the other nodes of a shared store; null on a store of this node alone. */
    private final Fleet fleet;

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
        operations.refreshLogged();     // the overrides in the store, before the first request
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

    /** Stops the thread that reads the settings other nodes change; idempotent. */
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
