package io.sluice.http;

import io.sluice.core.Rule;
import io.sluice.core.config.ConfigException;
import io.sluice.core.internal.rules.QueuedLeases;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How the rules in force are composed from their layers: parameter {@code limit}'s rule, the rules file's, and the
 * shared rules document's (the same schema as a rules file). The precedence:
 *
 * <ol>
 *   <li>the local rules first: parameter {@code limit}'s rule, then the file's in their order (their names must
 *       differ);</li>
 *   <li>a rule of the document replaces the local rule of its name, in that rule's place;</li>
 *   <li>a rule of the document with a new name comes after the local ones, in the document's order;</li>
 *   <li>the allowlists are merged: parameters', file's and document's (a union: nothing a layer allowlists is limited);
 *   </li>
 *   <li>parameter {@code shadow=true} still puts every rule in shadow mode, the document's included.</li>
 * </ol>
 *
 * <p>The document's {@code defaults} apply to its own rules only, as a file's to its own. Rules of JAX-RS annotations
 * are not among these: a rule of the document named by {@code @RateLimit(rule = ...)} applies where referenced, and one
 * named like an annotation's rule must keep the annotation's algorithm, as a rule of the file must (the front door's
 * {@link FrontDoor#checkReloads reload checks}).
 */
final class SharedRules {

    /** The front door's logger: what is logged here is the front door's to say. */
    private static final System.Logger LOG = System.getLogger(FrontDoor.class.getName());

    private SharedRules() {}

    /**
     * @param config the parameters: {@code limit}'s rule, their allowlist, {@code shadow}
     * @param file the rules file's rules as parsed ({@code rules: []} and no allowlist without a file)
     * @param document the shared document's rules as parsed, or null when there is none
     * @param log whether to log the warnings of {@link QueuedLeases} (the rules are put in force), or not (checked
     *     only)
     * @return the rules in force, allowlist applied
     * @throws ConfigException when the layers cannot be composed (a file rule named as parameter {@code limit}'s, a
     *     queue and a concurrency limit that defeat each other)
     */
    static RuleSet compose(SluiceConfig config, RuleSet file, RuleSet document, boolean log) {
        List<Rule> local = new ArrayList<>();
        if (config.limitRule() != null) {
            local.add(config.limitRule());
        }
        local.addAll(file.rules());
        Set<String> names = new HashSet<>();
        for (Rule r : local) {
            if (!names.add(r.name())) {
                throw new ConfigException("rules", r.name(), "expected rule names distinct from the rule of parameter "
                        + "\"limit\"; set parameter \"name\" or rename the rule in the file");
            }
        }
        List<Rule> all = document == null ? local : layer(local, document.rules());
        List<Rule> modes = new ArrayList<>(all.size());
        for (Rule r : all) {
            modes.add(config.shadow() && !r.shadow() ? r.withMode(Rule.Mode.SHADOW) : r);
        }
        List<String> warnings = QueuedLeases.check(modes);      // the matchers as written, before the allowlist's
        if (log) {
            warnings.forEach(w -> LOG.log(Level.WARNING, "Sluice rate limiting: " + w));
        }
        Allowlist allowlist = config.allowlist().and(file.allowlist());
        if (document != null) {
            allowlist = allowlist.and(document.allowlist());
        }
        Allowlist merged = allowlist;
        Map<String, String> enqueue = new LinkedHashMap<>(file.enqueue());      // a document's rule replaces its mode too
        if (document != null) {
            document.names().forEach(enqueue::remove);
            enqueue.putAll(document.enqueue());
        }
        return new RuleSet(modes.stream().map(merged::applyTo).toList(), merged, enqueue);
    }

    /**
     * @return {@code local} with each rule of {@code shared} in place of the local rule of its name, and the others of
     *     {@code shared} after them, in their order
     */
    static List<Rule> layer(List<Rule> local, List<Rule> shared) {
        Map<String, Rule> byName = new LinkedHashMap<>();
        shared.forEach(r -> byName.put(r.name(), r));
        List<Rule> out = new ArrayList<>(local.size() + shared.size());
        for (Rule r : local) {
            Rule replacement = byName.remove(r.name());
            out.add(replacement != null ? replacement : r);
        }
        out.addAll(byName.values());
        return out;
    }

    /**
     * @param inForce the names of the rules in force, in order
     * @param document the document's rules in force, or null
     * @return where each rule in force comes from, in their order
     */
    static Map<String, RuleOrigin> origins(List<String> inForce, SluiceConfig config, RuleSet document) {
        Set<String> shared = new HashSet<>(document == null ? List.of() : document.names());
        String parameter = config.limitRule() == null ? null : config.limitRule().name();
        Map<String, RuleOrigin> out = new LinkedHashMap<>();
        for (String name : inForce) {
            out.put(name, shared.contains(name) ? RuleOrigin.DOCUMENT
                    : name.equals(parameter) ? RuleOrigin.PARAMETER : RuleOrigin.FILE);
        }
        return out;
    }
}
