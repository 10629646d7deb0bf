package io.sluice.http;

import io.sluice.core.config.ConfigException;
import io.sluice.core.policy.PolicyParser;
import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Policy;
import io.sluice.core.request.RequestMatcher;
import io.sluice.core.Rule;
import io.sluice.core.key.Cidr;
import io.sluice.core.key.ClientIpResolver;
import io.sluice.core.key.KeyResolver;
import io.sluice.core.key.KeyResolvers;
import io.sluice.core.request.PathGlob;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Parses a rules file (YAML). Every field is checked; an error names the file, the rule and the field, such as
 * {@code rules.yaml: rules[1] (api).limit: expected "<n>/<period>" or "<n> concurrent", got "100 per hour"}.
 *
 * <pre>
 * defaults:                      # optional: every rule inherits these unless it sets them
 *   key: ip                      #   key syntax of {@link KeyResolvers}; default ip
 *   algorithm: gcra              #   default: inferred from the limit notation
 *   cost: 1
 *   mode: enforce                #   enforce | shadow
 *   on-store-failure: allow      #   allow | deny | local
 *   on-missing-key: skip         #   skip | anonymous
 * allowlist:                     # optional
 *   addresses: [10.0.0.0/8]      #   client IPs or CIDR blocks that no rule limits
 *   keys: [monitoring-key]       #   key values that no rule limits
 *   roles: [admin]               #   container roles whose users no rule limits
 * rules:                         # evaluated in order; every matching rule counts
 *   - name: login                #   required, unique: [A-Za-z0-9][A-Za-z0-9._-]{0,63}
 *     paths: [/login]            #   globs: /api/** any depth, /users/* one segment; default every path
 *     methods: [POST]            #   default every method
 *     limit: 5/1m                #   required: the limit notation of {@link PolicyParser}
 *     key, algorithm, cost, mode, on-store-failure, on-missing-key: as in defaults
 *     enqueue: jobs              #   optional: over the immediate rate, a request is offered to queue "jobs" and
 *                                #   answered 202 Accepted (servlet filter; see docs/enqueue.md)
 *     tiers:                     #   optional: a value of the request picks the policy
 *       by: attribute:plan       #     key syntax
 *       policies: {free: 100/1h, pro: 10000/1h}   # a missing or unknown tier gets the rule's limit
 * </pre>
 *
 * <p>Only plain YAML is read (SnakeYAML's safe constructor: no Java types), at most {@value RulesSource#MAX_BYTES}
 * bytes, a few aliases, no duplicate keys.
 */
public final class RulesFile {

    private static final Set<String> TOP = Set.of("defaults", "allowlist", "rules");
    private static final Set<String> DEFAULTS = Set.of("key", "algorithm", "cost", "mode", "on-store-failure",
            "on-missing-key", "denial-cache");
    private static final Set<String> RULE = Set.of("name", "paths", "methods", "limit", "key", "algorithm", "cost",
            "count-status", "denial-cache",
            "mode", "on-store-failure", "on-missing-key", "tiers", "enqueue");
    private static final Set<String> ALLOWLIST = Set.of("addresses", "keys", "roles");
    private static final Set<String> TIERS = Set.of("by", "policies");
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
    private static final Pattern QUEUE = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    private static final Pattern METHOD = Pattern.compile("[A-Za-z]{1,20}");

    private final String source;
    private final YamlFields yaml;
    private final ClientIpResolver ips;
    private final Map<String, KeyResolver> named;

    private RulesFile(String source, ClientIpResolver ips, Map<String, KeyResolver> named) {
        this.source = source;
        this.yaml = new YamlFields(source);
        this.ips = ips;
        this.named = named;
    }

    /**
     * @param source names the file in error messages
     * @param yaml the file's text
     * @param ips finds client addresses for {@code ip} keys
     * @throws ConfigException naming the file, rule and field
     */
    public static RuleSet parse(String source, String yaml, ClientIpResolver ips) {
        return new RulesFile(source, ips, Map.of()).parse(yaml);
    }

    /** {@link #parse(String, String, ClientIpResolver)} where keys may also name resolvers the application provides. */
    public static RuleSet parse(String source, String yaml, ClientIpResolver ips, Map<String, KeyResolver> named) {
        return new RulesFile(source, ips, named).parse(yaml);
    }

    private RuleSet parse(String document) {
        Map<String, Object> top = yaml.mapping(yaml.load(document), "the top level", TOP);
        Map<String, Object> defaults = top.containsKey("defaults")
                ? yaml.mapping(top.get("defaults"), "defaults", DEFAULTS) : Map.of();
        Allowlist allowlist = top.containsKey("allowlist") ? allowlist(top.get("allowlist")) : Allowlist.NONE;
        if (!top.containsKey("rules")) {
            throw yaml.error("the top level", "expected a \"rules\" list (\"rules: []\" for none)");
        }
        if (!(top.get("rules") instanceof List<?> items)) {
            throw new ConfigException(source + ": rules", YamlFields.text(top.get("rules")), "expected a list of rules");
        }
        List<Rule> rules = new ArrayList<>();
        Set<String> names = new HashSet<>();
        Map<String, String> enqueue = new LinkedHashMap<>();
        for (int i = 0; i < items.size(); i++) {
            Rule rule = rule(items.get(i), i, defaults);
            String queue = enqueue(items.get(i), i, rule);
            if (queue != null) {
                enqueue.put(rule.name(), queue);
            }
            if (!names.add(rule.name())) {
                throw new ConfigException(source + ": rules[" + i + "].name", rule.name(),
                        "expected a unique name; an earlier rule has this one");
            }
            rules.add(rule);
        }
        return new RuleSet(rules, allowlist, enqueue);
    }

    /** {@code enqueue: <queue>}: the queue's name, or null. */
    private String enqueue(Object item, int index, Rule rule) {
        String at = "rules[" + index + "] (" + rule.name() + ")";
        String queue = yaml.string(yaml.mapping(item, at, RULE), "enqueue", at);
        if (queue == null) {
            return null;
        }
        if (!QUEUE.matcher(queue).matches()) {
            throw new ConfigException(yaml.field(at, "enqueue"), queue, "expected a queue name of letters, digits,"
                    + " '.', '_' or '-', at most 64 characters, such as \"jobs\"");
        }
        if (rule.policy().algorithm().concurrent() || rule.countsByOutcome()) {
            throw new ConfigException(yaml.field(at, "enqueue"), queue, "expected a rate limit such as \"10/1s\" that"
                    + " counts every request: a concurrency limit or count-status rule cannot enqueue");
        }
        return queue;
    }

    private Rule rule(Object item, int index, Map<String, Object> defaults) {
        String at = "rules[" + index + "]";
        Object given = item instanceof Map<?, ?> raw ? raw.get("name") : null;
        // the rule's name, when it has a valid one, is in every message about it: even an unknown field's
        Map<String, Object> m = yaml.mapping(item, given instanceof String n && NAME.matcher(n).matches()
                ? at + " (" + n + ")" : at, RULE);
        String name = yaml.string(m, "name", at);
        if (name == null || !NAME.matcher(name).matches()) {
            throw new ConfigException(source + ": " + at + ".name", name,
                    "expected a name of letters, digits, '.', '_' or '-', at most 64 characters, such as \"per-ip\"");
        }
        at = at + " (" + name + ")";
        Map<String, Object> f = new LinkedHashMap<>(defaults);
        f.putAll(m);
        String algorithmText = yaml.string(f, "algorithm", at);
        Algorithm algorithm = algorithmText == null ? null : Algorithm.fromId(yaml.field(at, "algorithm"), algorithmText);
        String limit = yaml.string(m, "limit", at);
        if (limit == null) {
            throw new ConfigException(yaml.field(at, "limit"), null, "expected a limit such as \"100/1m\" (required)");
        }
        Policy policy = PolicyParser.parse(yaml.field(at, "limit"), limit, algorithm);
        return new Rule(name,
                matcher(m, at),
                KeyResolvers.parse(yaml.field(at, "key"), orDefault(yaml.string(f, "key", at), "ip"), ips, named),
                policy,
                m.containsKey("tiers") ? tiers(m.get("tiers"), at + ".tiers", algorithm, policy.algorithm()) : null,
                cost(f, at),
                yaml.choice(f, "mode", at, Rule.Mode.ENFORCE),
                yaml.choice(f, "on-store-failure", at, Rule.FailureMode.ALLOW),
                yaml.choice(f, "on-missing-key", at, Rule.MissingKey.SKIP),
                statuses(m, at),
                yaml.bool(f, "denial-cache", at, true));
    }

    /** {@code count-status: [401, 403]}: the rule counts only responses with these statuses. */
    private Set<Integer> statuses(Map<String, Object> m, String at) {
        Set<Integer> out = new LinkedHashSet<>();
        for (String s : yaml.strings(m, "count-status", at)) {
            if (!s.matches("[1-5][0-9][0-9]")) {
                throw new ConfigException(yaml.field(at, "count-status"), s, "expected HTTP statuses such as [401, 403]");
            }
            out.add(Integer.parseInt(s));
        }
        return out;
    }

    private RequestMatcher matcher(Map<String, Object> m, String at) {
        List<String> paths = yaml.strings(m, "paths", at);
        for (String p : paths) {
            if (!p.startsWith("/") || p.length() > PathGlob.MAX_LENGTH) {
                throw new ConfigException(yaml.field(at, "paths"), p.length() > 100 ? p.substring(0, 100) + "..." : p,
                        "expected a path pattern starting with '/', of at most " + PathGlob.MAX_LENGTH
                                + " characters, such as \"/api/**\"");
            }
        }
        Set<String> methods = new LinkedHashSet<>();
        for (String method : yaml.strings(m, "methods", at)) {
            if (!METHOD.matcher(method).matches()) {
                throw new ConfigException(yaml.field(at, "methods"), method, "expected an HTTP method such as \"POST\"");
            }
            methods.add(method.toUpperCase(Locale.ROOT));
        }
        return RequestMatcher.of(paths, methods);
    }

    private Rule.Tiers tiers(Object value, String at, Algorithm algorithm, Algorithm rules) {
        Map<String, Object> t = yaml.mapping(value, at, TIERS);
        String by = yaml.string(t, "by", at);
        if (by == null) {
            throw new ConfigException(yaml.field(at, "by"), null, "expected the key that picks the tier, such as \"attribute:plan\"");
        }
        KeyResolver selector = KeyResolvers.parse(yaml.field(at, "by"), by, ips, named);
        Object policies = t.get("policies");
        if (!(policies instanceof Map<?, ?> p) || p.isEmpty()) {
            throw new ConfigException(yaml.field(at, "policies"), YamlFields.text(policies),
                    "expected a mapping of tier to limit, such as {free: 100/1h, pro: 10000/1h}");
        }
        Map<String, Policy> out = new LinkedHashMap<>();
        // keyed by the form the selector gives ("#vip", or a name over 64 characters, as its hash)
        p.forEach((tier, limit) -> {
            String where = yaml.field(at, "policies." + YamlFields.text(tier));
            String stored = tier instanceof Map<?, ?> || tier instanceof List<?> ? null
                    : KeyResolvers.stored(YamlFields.text(tier));
            if (tier == null || stored == null) {      // a selector never gives a blank value: "" would never be picked
                throw new ConfigException(yaml.field(at, "policies"), YamlFields.text(tier),
                        "expected tier names such as {free: 100/1h, pro: 10000/1h}, not a blank one nor a list or"
                                + " mapping");
            }
            Policy policy = PolicyParser.parse(where, yaml.scalar(limit, where), algorithm);
            if (policy.algorithm() != rules) {
                throw new ConfigException(where, String.valueOf(limit), "expected a limit of the rule's algorithm, "
                        + rules.id() + ", not " + policy.algorithm().id() + ": a rule's tiers count in one state per"
                        + " key, which only one algorithm can read (a client switching tier would start afresh)");
            }
            if (out.put(stored, policy) != null) {       // 1 and '1', or free and ' free': one would be lost
                throw new ConfigException(where, YamlFields.text(tier), "expected a tier distinct from the others; an earlier one"
                        + " is the same as the selector gives it (trimmed, numbers as written)");
            }
        });
        return new Rule.Tiers(selector, out);
    }

    private Allowlist allowlist(Object value) {
        Map<String, Object> a = yaml.mapping(value, "allowlist", ALLOWLIST);
        List<Cidr> addresses = new ArrayList<>();
        for (String entry : yaml.strings(a, "addresses", "allowlist")) {
            addresses.add(Cidr.parse(yaml.field("allowlist", "addresses"), entry));
        }
        Set<String> keys = new HashSet<>();
        for (String key : yaml.strings(a, "keys", "allowlist")) {
            if (key.isBlank()) {            // resolvers give no blank key: it would match nothing
                throw new ConfigException(yaml.field("allowlist", "keys"), key, "expected key values such as"
                        + " [monitoring-key], not a blank one");
            }
            keys.addAll(KeyResolvers.normalized(key));      // as resolvers give them: a long API key as its hash
        }
        Set<String> roles = new HashSet<>();
        for (String role : yaml.strings(a, "roles", "allowlist")) {
            Allowlist.checkRole(yaml.field("allowlist", "roles"), role);
            roles.add(role.trim());
        }
        return new Allowlist(addresses, keys, roles);
    }

    private long cost(Map<String, Object> f, String at) {
        Object v = f.get("cost");
        if (v == null) {
            return 1;
        }
        String s = yaml.scalar(v, yaml.field(at, "cost"));
        if (!s.matches("\\d{1,18}")) {
            throw new ConfigException(yaml.field(at, "cost"), s, "expected a whole number >= 0");
        }
        return Long.parseLong(s);
    }

    private static String orDefault(String value, String fallback) {
        return value == null ? fallback : value;
    }
}
