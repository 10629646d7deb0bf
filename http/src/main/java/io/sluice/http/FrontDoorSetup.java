package io.sluice.http;

import io.sluice.core.DecisionListener;
import io.sluice.core.Rule;
import io.sluice.core.config.ConfigException;
import io.sluice.core.internal.rules.QueuedLeases;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.store.Store;
import io.sluice.core.store.StoreProvider;
import io.sluice.core.time.TimeSource;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * What {@link FrontDoor#open} assembles before the engine: the rules in force (parameter {@code limit}'s rule and the
 * rules file's, reloaded when the file changes) and the configured store.
 */
final class FrontDoorSetup {

    /** The front door's logger: what is logged here is the front door's to say. */
    private static final System.Logger LOG = System.getLogger(FrontDoor.class.getName());

    private FrontDoorSetup() {}

    /**
     * @return the rules in force: fixed without a rules file, else reloaded from it, each load composed with parameter
     *     {@code limit}'s rule and passed through {@code reloadChecks}; {@code listeners} hear of every reload
     */
    static Supplier<RuleSet> rules(SluiceConfig config, TimeSource time, List<Consumer<RuleSet>> reloadChecks,
            List<DecisionListener> listeners) {
        if (config.rules() == null) {
            RuleSet only = compose(config, new RuleSet(List.of(), Allowlist.NONE));
            return () -> only;
        }
        String name = config.rules().name();
        return new ReloadingRules(config.rulesParameter(), config.rules(),
                text -> {
                    RuleSet next = compose(config, RulesFile.parse(name, text, config.clientIp(), config.namedKeys()));
                    reloadChecks.forEach(check -> check.accept(next));      // none yet at start-up
                    return next;
                },
                config.reloadIntervalMicros(), time, (before, after) -> rulesChanged(listeners, before, after));
    }

    /** Tells each listener of a reload; one that throws is logged, and the others are told all the same. */
    private static void rulesChanged(List<DecisionListener> listeners, RuleSet before, RuleSet after) {
        for (DecisionListener listener : listeners) {
            try {
                listener.onRulesChanged(before.rules(), after.rules());
            } catch (RuntimeException e) {      // a reload is rare: logged each time
                LOG.log(Level.WARNING, "decision listener " + listener.getClass().getName()
                        + " failed on the rules reloaded", e);
            }
        }
    }

    /**
     * The rule of parameter {@code limit} first, then the file's; shadow forced when configured; the allowlists of the
     * parameters and the file applied. A
     * queue and a concurrency limit that defeat each other ({@link QueuedLeases}) are refused, or logged when they may
     * never meet.
     */
    private static RuleSet compose(SluiceConfig config, RuleSet file) {
        List<Rule> all = new ArrayList<>();
        if (config.limitRule() != null) {
            all.add(config.limitRule());
        }
        all.addAll(file.rules());
        Set<String> names = new HashSet<>();
        List<Rule> modes = new ArrayList<>(all.size());
        for (Rule r : all) {
            if (!names.add(r.name())) {
                throw new ConfigException("rules", r.name(), "expected rule names distinct from the rule of parameter "
                        + "\"limit\"; set parameter \"name\" or rename the rule in the file");
            }
            modes.add(config.shadow() && !r.shadow() ? r.withMode(Rule.Mode.SHADOW) : r);
        }
        for (String warning : QueuedLeases.check(modes)) {      // the matchers as written, before the allowlist's
            LOG.log(Level.WARNING, "Sluice rate limiting: " + warning);
        }
        Allowlist allowlist = config.allowlist().and(file.allowlist());
        return new RuleSet(modes.stream().map(allowlist::applyTo).toList(), allowlist);
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
