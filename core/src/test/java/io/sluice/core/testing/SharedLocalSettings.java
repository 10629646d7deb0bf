package io.sluice.core.testing;

import io.sluice.core.store.AuditEntry;
import io.sluice.core.store.KeyOverride;
import io.sluice.core.store.SharedDocument;
import io.sluice.core.store.SharedSettings;
import io.sluice.core.store.SharedSnapshot;
import java.util.List;

/**
 * One process's {@link SharedSettings#local() settings} that say they are {@link #shared() shared}, as a Redis store's
 * are, so that an engine over them runs its fleet side (the watcher of other nodes' changes) in memory. Every call goes
 * to {@link #local()}; a test overrides the calls it holds, counts or changes.
 */
public class SharedLocalSettings implements SharedSettings {

    private volatile SharedSettings local = SharedSettings.local();

    /** @return the settings every call goes to */
    public final SharedSettings local() {
        return local;
    }

    /** Starts again from empty settings, as a store that lost its data. */
    protected final void replaceLocal() {
        local = SharedSettings.local();
    }

    @Override
    public long version() {
        return local.version();
    }

    @Override
    public SharedSnapshot read() {
        return local.read();
    }

    @Override
    public SharedDocument replaceDocument(String text, long expectedVersion, String who, long nowMillis) {
        return local.replaceDocument(text, expectedVersion, who, nowMillis);
    }

    @Override
    public KeyOverride putOverride(KeyOverride override) {
        return local.putOverride(override);
    }

    @Override
    public KeyOverride removeOverride(String rule, String key, String who, long nowMillis) {
        return local.removeOverride(rule, key, who, nowMillis);
    }

    @Override
    public void record(AuditEntry entry) {
        local.record(entry);
    }

    @Override
    public List<AuditEntry> audit(int max) {
        return local.audit(max);
    }

    @Override
    public boolean shared() {
        return true;
    }
}
