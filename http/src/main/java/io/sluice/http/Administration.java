package io.sluice.http;

import io.sluice.core.Engine;
import io.sluice.core.Operations;
import io.sluice.core.Rule;
import io.sluice.core.StoreHealth;
import io.sluice.core.config.ConfigException;
import io.sluice.core.store.AuditEntry;
import io.sluice.core.store.KeyOverride;
import io.sluice.core.store.SharedDocument;
import io.sluice.core.store.SharedSettings;
import io.sluice.core.store.StaleVersionException;
import io.sluice.core.store.StoreException;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What an operator does with a front door ({@link FrontDoor#admin()}), for an admin endpoint: the shared rules
 * document, per-key overrides of the rules in force, resets, the audit trail (each change recorded with who made it),
 * and where the rules in force come from. The engine's {@link Operations} does the work; this finds rules by name among
 * the rules in force (parameter {@code limit}'s, the rules file's, the shared document's; not JAX-RS annotations').
 * On the memory store all of it is this node's; on Redis, the fleet's.
 */
public final class Administration {

    /** The longest an override may be set for: ten years (3,650 days); longer ones hold until removed. */
    public static final Duration MAX_OVERRIDE_DURATION = Operations.MAX_OVERRIDE_DURATION;

    private final Engine engine;
    private final RulesInForce rules;

    Administration(Engine engine, RulesInForce rules) {
        this.engine = engine;
        this.rules = rules;
    }

    /**
     * @return the shared rules document, read from the store now ({@link SharedDocument#present()} false when there is
     *     none)
     * @throws StoreException when the store cannot answer
     */
    public SharedDocument sharedRules() {
        return engine.operations().document();
    }

    /**
     * Checks {@code text} against this node's local rules and checks, and writes it as the shared rules document when
     * its version is still {@code expectedVersion}; puts it in force here and tells the fleet.
     *
     * @param text a document in the schema of a rules file, at most {@link SharedSettings#MAX_DOCUMENT_BYTES} bytes of
     *     UTF-8; null removes the document (the local rules alone)
     * @param expectedVersion the version the caller read, or -1 for whatever is there
     * @param who the admin principal, for the audit trail
     * @return the document written
     * @throws ConfigException when the document is invalid here: nothing is written
     * @throws StaleVersionException when another version is there: nothing is written
     * @throws IllegalArgumentException when it is too long: nothing is written
     * @throws StoreException when the store cannot answer
     */
    public SharedDocument replaceSharedRules(String text, long expectedVersion, String who) {
        return engine.operations().replaceRules(text, expectedVersion, who);
    }

    /**
     * Sets another policy for one key of the rule named {@code ruleName} ({@link Operations#override}).
     *
     * @param key the key as the rule resolves it
     * @param notation a limit of the rule's algorithm, such as {@code 10000/1h}
     * @param duration how long it holds, at most {@link #MAX_OVERRIDE_DURATION}; null until removed
     * @return the override set, or null when no rule in force has that name
     * @throws ConfigException when {@code notation} or {@code duration} is invalid, or of another algorithm
     * @throws IllegalStateException when {@link SharedSettings#MAX_OVERRIDES} hold already
     * @throws StoreException when the store cannot answer
     */
    public KeyOverride override(String ruleName, String key, String notation, Duration duration, String who) {
        if (duration != null && duration.compareTo(MAX_OVERRIDE_DURATION) > 0) {
            throw new ConfigException("duration", duration.toString(), "expected at most "
                    + MAX_OVERRIDE_DURATION.toDays() + " days; none for an override that holds until removed");
        }
        Rule rule = rule(ruleName);
        return rule == null ? null : engine.operations().override(rule, key, notation, duration, who);
    }

    /**
     * @return the override removed, or null when the key had none under that rule
     * @throws StoreException when the store cannot answer
     */
    public KeyOverride removeOverride(String ruleName, String key, String who) {
        return engine.operations().removeOverride(ruleName, key, who);
    }

    /**
     * @return the overrides in the store, ended ones left out
     * @throws StoreException when the store cannot answer
     */
    public List<KeyOverride> overrides() {
        return engine.operations().overrides();
    }

    /**
     * Resets (unblocks) {@code key} under the rule named {@code ruleName} on every node, and records it with who.
     *
     * @return false when no rule in force has that name (nothing is done nor recorded)
     * @throws StoreException when the store cannot answer
     */
    public boolean reset(String ruleName, String key, String who) {
        if (rule(ruleName) == null) {
            return false;
        }
        engine.operations().reset(ruleName, key, who);
        return true;
    }

    /**
     * @param max the most entries, >= 1
     * @return the audit trail's newest entries, newest first
     * @throws StoreException when the store cannot answer
     */
    public List<AuditEntry> audit(int max) {
        return engine.operations().audit(max);
    }

    /** @return where this node stands with the shared settings: versions in force, the last rejection, overrides */
    public Operations.Status status() {
        return engine.operations().status();
    }

    /**
     * @return whether the store answers, and while it fails, since when and which rules answer by which failure mode
     *     ({@link Engine#health()})
     */
    public StoreHealth storeHealth() {
        return engine.health();
    }

    /** @return the rules in force, in order */
    public List<Rule> rulesInForce() {
        return rules.get().rules();
    }

    /** @return the names of the rules in force, in order, with where each comes from */
    public Map<String, RuleOrigin> ruleOrigins() {
        return rules.origins();
    }

    /** @return {@code key} as overrides and the audit trail name it ({@link Operations#keyId}) */
    public String keyId(String key) {
        return engine.operations().keyId(key);
    }

    private Rule rule(String name) {
        for (Rule r : rules.get().rules()) {
            if (r.name().equals(name)) {
                return r;
            }
        }
        return null;
    }
}
