package io.sluice.core.config;

import io.sluice.core.Rule;
import java.util.List;

/**
 * What a rules file says: rules in evaluation order, and what is never limited.
 *
 * @param rules the rules, names unique
 * @param allowlist addresses and key values that are never limited
 */
public record RuleSet(List<Rule> rules, Allowlist allowlist) {

    public RuleSet {
        rules = List.copyOf(rules);
    }

    /** @return the rule names in order, for logs */
    public List<String> names() {
        return rules.stream().map(Rule::name).toList();
    }
}
