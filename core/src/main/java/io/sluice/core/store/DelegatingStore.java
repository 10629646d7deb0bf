package io.sluice.core.store;

import io.sluice.core.policy.Outcome;
import io.sluice.core.time.TimeSource;
import java.util.List;

/**
 * A store that forwards every call to another, its sharing, fleet channel and settings included: extend it to time,
 * count or decorate the calls of a real store ({@code MicrometerMetrics.instrument}) and override only what changes,
 * so that what a store tells the engine (shared, fleet, settings) is never lost on the way when {@link Store} gains a
 * method.
 */
public class DelegatingStore implements Store {

    /** The store every call goes to. */
    protected final Store store;

    /** @param store the store every call goes to */
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
