package io.sluice.core;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Policy;
import io.sluice.core.policy.PolicyParser;
import io.sluice.core.store.KeyOverride;
import io.sluice.core.store.SharedSettings;
import io.sluice.core.time.TimeSource;
import java.lang.System.Logger.Level;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The overrides in force on this node ({@link KeyOverride}), looked up for each check: a rule without any costs one
 * map read; a rule with some costs the key's {@link SharedSettings#keyId} (a keyed hash on Redis) and one more. The
 * overridden policy travels in the same store call as the rule's would: no extra call.
 */
final class Overrides {

    private static final System.Logger LOG = System.getLogger(Overrides.class.getName());

    /** A notation followed by its algorithm's id in parentheses. */
    private static final Pattern NAMED = Pattern.compile("(.*\\S)\\s+\\(([a-z-]+)\\)");

    /** An override, parsed. */
    private record Entry(Policy policy, long untilMicros) {}

    private final SharedSettings settings;
    private final TimeSource time;
    /** Rule name to key id to override; replaced whole at each change. */
    private volatile Map<String, Map<String, Entry>> byRule = Map.of();

    Overrides(SharedSettings settings, TimeSource time) {
        this.settings = settings;
        this.time = time;
    }

    /**
     * @return the policy {@code rule}'s check of {@code key} uses now: the key's override while it holds, else
     *     {@code policy}; the clock is read only for an override that ends
     */
    Policy apply(String rule, String key, Policy policy) {
        Map<String, Map<String, Entry>> rules = byRule;
        if (rules.isEmpty()) {
            return policy;
        }
        Map<String, Entry> keys = rules.get(rule);
        if (keys == null) {
            return policy;
        }
        Entry e = keys.get(settings.keyId(key));
        return e == null || (e.untilMicros != 0 && time.nowMicros() >= e.untilMicros) ? policy : e.policy;
    }

    /**
     * Puts {@code overrides} in force, in place of those before. An override whose policy this version cannot read is
     * left out (logged). A key's remembered denial and leased blocks need no forgetting: both hold for one policy.
     */
    void replace(List<KeyOverride> overrides) {
        Map<String, Map<String, Entry>> next = new HashMap<>();
        for (KeyOverride o : overrides) {
            Policy p;
            long until;
            try {
                p = parse("override", o.policy(), null);
                until = o.untilMillis() == 0 ? 0 : Math.multiplyExact(o.untilMillis(), 1000);
            } catch (RuntimeException e) {       // a policy of a later version, an end past the year 292,000
                LOG.log(Level.WARNING, "Sluice: the override of rule " + o.rule() + " for key " + o.key()
                        + " cannot be read, left out: " + e.getMessage());
                continue;
            }
            next.computeIfAbsent(o.rule(), r -> new HashMap<>()).put(o.key(), new Entry(p, until));
        }
        byRule = next.isEmpty() ? Map.of() : next;
    }

    /**
     * Parses an override's policy: the limit notation, in {@code algorithm} (null: as the notation says), or as
     * {@link PolicyParser#format} writes it, its algorithm's id in parentheses at the end ({@code 5/1h (gcra)}).
     */
    static Policy parse(String parameter, String text, Algorithm algorithm) {
        Matcher m = NAMED.matcher(text);
        if (m.matches()) {
            return PolicyParser.parse(parameter, m.group(1), Algorithm.fromId(parameter, m.group(2)));
        }
        return PolicyParser.parse(parameter, text, algorithm);
    }

    /** @return how many overrides are in force */
    int size() {
        return byRule.values().stream().mapToInt(Map::size).sum();
    }
}
