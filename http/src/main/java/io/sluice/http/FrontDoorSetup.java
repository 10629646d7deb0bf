package io.sluice.http;

import io.sluice.core.DecisionListener;
import io.sluice.core.config.ConfigException;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.store.Store;
import io.sluice.core.store.StoreProvider;
import io.sluice.core.time.TimeSource;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.function.Consumer;

/**
 * What {@link FrontDoor#open} assembles before the engine: the rules in force (parameter {@code limit}'s rule and the
 * rules file's, reloaded when the file changes, under the shared rules document's) and the configured store.
 */
final class FrontDoorSetup {

    /** The front door's logger: what is logged here is the front door's to say. */
    private static final System.Logger LOG = System.getLogger(FrontDoor.class.getName());

    private FrontDoorSetup() {}

    /**
     * @return the rules in force: parameter {@code limit}'s rule and the rules file's (reloaded when it changes), the
     *     shared rules document's layered on top ({@link SharedRules}); every composition passed through
     *     {@code reloadChecks}; {@code listeners} hear of every change
     * @throws ConfigException when the rules file cannot be read or is invalid
     */
    static RulesInForce rules(SluiceConfig config, TimeSource time, List<Consumer<RuleSet>> reloadChecks,
            List<DecisionListener> listeners) {
        return new RulesInForce(config, time, reloadChecks, (before, after) -> rulesChanged(listeners, before, after));
    }

    /** Tells each listener of a change; one that throws is logged, and the others are told all the same. */
    private static void rulesChanged(List<DecisionListener> listeners, RuleSet before, RuleSet after) {
        for (DecisionListener listener : listeners) {
            try {
                listener.onRulesChanged(before.rules(), after.rules());
            } catch (RuntimeException e) {      // a change is rare: logged each time
                LOG.log(Level.WARNING, "decision listener " + listener.getClass().getName()
                        + " failed on the rules changed", e);
            }
        }
    }

    /** @return the configured store: the memory store, or the one a {@link StoreProvider} on the class path opens */
    static Store store(SluiceConfig config, TimeSource time) {
        if (config.store().equals("memory")) {
            return MemoryStore.builder().maximumKeys(config.maxKeys()).timeSource(time).build();
        }
        return StoreProvider.find(config.store()).orElseThrow(() -> new ConfigException("store", config.store(),
                "no store on the class path opens this URL")).open(config.store());
    }
}
