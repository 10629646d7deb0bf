package io.sluice.http;

import io.sluice.core.Rule;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * What a rules file says: rules in evaluation order, and what is never limited.
 *
 * @param rules the rules, names unique
 * @param allowlist addresses and key values that are never limited
 * @param enqueue the rules in {@code enqueue} mode: rule name to the name of the queue a request over its immediate
 *     rate is offered to (the servlet filter answers it 202 Accepted; see {@code docs/enqueue.md})
 */
public record RuleSet(List<Rule> rules, Allowlist allowlist, Map<String, String> enqueue) {

    public RuleSet {
        rules = List.copyOf(rules);
        enqueue = Map.copyOf(enqueue);
    }

    /** Rules none of which is in {@code enqueue} mode. */
    public RuleSet(List<Rule> rules, Allowlist allowlist) {
        this(rules, allowlist, Map.of());
    }

    /** @return the queue a request over rule {@code ruleName}'s immediate rate is offered to, or null */
    public String queueOf(String ruleName) {
        return enqueue.get(ruleName);
    }

    /** @return the rule names in order, for logs */
    public List<String> names() {
        return rules.stream().map(Rule::name).toList();
    }

    /**
     * @return for logs: the rule names in order, a rule with tiers followed by its selector and tier names, and the
     *     allowlist's size when it has entries, such as {@code [login, api (tiers by attribute:plan: free, pro)],
     *     allowlist: 2 address blocks, 1 key} (and {@code , 1 role} when roles are listed)
     */
    public String summary() {
        StringBuilder b = new StringBuilder("[");
        for (Rule r : rules) {
            b.append(b.length() > 1 ? ", " : "").append(r.name());
            if (r.tiers() != null) {
                b.append(" (tiers by ").append(r.tiers().selector()).append(": ")
                        .append(String.join(", ", new TreeSet<>(r.tiers().policies().keySet()))).append(')');
            }
            if (enqueue.containsKey(r.name())) {
                b.append(" (enqueue ").append(enqueue.get(r.name())).append(')');
            }
        }
        b.append(']');
        int addresses = allowlist.addresses().size();
        int keys = allowlist.keys().size();
        int roles = allowlist.roles().size();
        if (addresses + keys + roles > 0) {
            b.append(", allowlist: ").append(addresses).append(addresses == 1 ? " address block, " : " address blocks, ")
                    .append(keys).append(keys == 1 ? " key" : " keys");
            if (roles > 0) {
                b.append(", ").append(roles).append(roles == 1 ? " role" : " roles");
            }
        }
        return b.toString();
    }
}
