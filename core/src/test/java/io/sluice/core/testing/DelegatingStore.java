package io.sluice.core.testing;

import io.sluice.core.policy.Outcome;
import io.sluice.core.store.Check;
import io.sluice.core.store.FleetChannel;
import io.sluice.core.store.Lease;
import io.sluice.core.store.SharedSettings;
import io.sluice.core.store.Store;
import io.sluice.core.time.TimeSource;
import java.util.List;

/**
 * A store that forwards every call to another (a Redis store, say), its sharing, fleet channel and settings included:
 * tests extend it to watch the calls a real store answers.
 */
public class DelegatingStore implements Store {

    protected final Store store;

    public DelegatingStore(Store store) {
        this.store = store;
    }

    @Override
    public List<Outcome> evaluate(List<Check> checks, long nowMicros) {
        return store.evaluate(checks, nowMicros);
    }

    @Override
    public List<Outcome> evaluate(List<Check> checks, long nowMicros, TimeSource clock) {
        return store.evaluate(checks, nowMicros, clock);
    }

    @Override
    public void release(List<Lease> leases, long nowMicros) {
        store.release(leases, nowMicros);
    }

    @Override
    public void reset(String rule, String key) {
        store.reset(rule, key);
    }

    @Override
    public boolean shared() {
        return store.shared();
    }

    @Override
    public FleetChannel fleet() {
        return store.fleet();
    }

    @Override
    public SharedSettings settings() {
        return store.settings();
    }

    @Override
    public void close() {
        store.close();
    }
}
