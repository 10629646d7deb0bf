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
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.representer.Representer;
import org.yaml.snakeyaml.resolver.Resolver;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;

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
 * rules:                         # evaluated in order; every matching rule counts
 *   - name: login                #   required, unique: [A-Za-z0-9][A-Za-z0-9._-]{0,63}
 *     paths: [/login]            #   globs: /api/** any depth, /users/* one segment; default every path
 *     methods: [POST]            #   default every method
 *     limit: 5/1m                #   required: the limit notation of {@link PolicyParser}
 *     key, algorithm, cost, mode, on-store-failure, on-missing-key: as in defaults
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
            "mode", "on-store-failure", "on-missing-key", "tiers");
    private static final Set<String> ALLOWLIST = Set.of("addresses", "keys");
    private static final Set<String> TIERS = Set.of("by", "policies");
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
    private static final Pattern METHOD = Pattern.compile("[A-Za-z]{1,20}");
    /** The characters of a list or mapping an error quotes: past {@link ConfigException}'s 200, so it shows "...". */
    private static final int TEXT_LIMIT = 201;

    private final String source;
    private final ClientIpResolver ips;

    private final Map<String, KeyResolver> named;

    private RulesFile(String source, ClientIpResolver ips, Map<String, KeyResolver> named) {
        this.source = source;
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

    private RuleSet parse(String yaml) {
        Map<String, Object> top = mapping(load(yaml), "the top level", TOP);
        Map<String, Object> defaults = top.containsKey("defaults")
                ? mapping(top.get("defaults"), "defaults", DEFAULTS) : Map.of();
        Allowlist allowlist = top.containsKey("allowlist") ? allowlist(top.get("allowlist")) : Allowlist.NONE;
        if (!top.containsKey("rules")) {
            throw error("the top level", "expected a \"rules\" list (\"rules: []\" for none)");
        }
        if (!(top.get("rules") instanceof List<?> items)) {
            throw new ConfigException(source + ": rules", text(top.get("rules")), "expected a list of rules");
        }
        List<Rule> rules = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (int i = 0; i < items.size(); i++) {
            Rule rule = rule(items.get(i), i, defaults);
            if (!names.add(rule.name())) {
                throw new ConfigException(source + ": rules[" + i + "].name", rule.name(),
                        "expected a unique name; an earlier rule has this one");
            }
            rules.add(rule);
        }
        return new RuleSet(rules, allowlist);
    }

    private Object load(String yaml) {
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(false);
        options.setMaxAliasesForCollections(20);
        options.setAllowRecursiveKeys(false);
        options.setNestingDepthLimit(20);
        options.setCodePointLimit(RulesSource.MAX_BYTES);
        try {
            DumperOptions dump = new DumperOptions();
            Object document = new Yaml(new SafeConstructor(options), new Representer(dump), dump, options,
                    new PlainScalars()).load(yaml);
            if (document == null) {
                throw error("the file", "is empty; expected a mapping with a \"rules\" list");
            }
            return document;
        } catch (ConfigException e) {
            throw e;
        } catch (YAMLException | IllegalArgumentException e) {
            // SnakeYAML's own errors, and those of its constructors on explicit tags (!!int abc, !!binary @@)
            String reason = String.valueOf(e.getMessage());
            throw new ConfigException(source + ": not valid YAML: "
                    + (reason.length() > 500 ? reason.substring(0, 500) + "..." : reason));
        }
    }

    /**
     * YAML 1.1's implicit types, but for null, {@code true}/{@code false} and decimal integers, are read as the text
     * written: a tier {@code 0123} is not the octal 83, an allowlisted key {@code 12:30} not the sexagesimal 750, a rule
     * named {@code 010} not 8, {@code yes}/{@code on} not booleans and {@code 1.50} not 1.5 (YAML 1.2's core schema).
     */
    private static final class PlainScalars extends Resolver {
        @Override
        protected void addImplicitResolvers() {
            addImplicitResolver(Tag.BOOL, Pattern.compile("^(?:true|True|TRUE|false|False|FALSE)$"),
                    "tTfF");
            addImplicitResolver(Tag.INT, Pattern.compile("^(?:0|[-+]?[1-9][0-9]*)$"), "-+0123456789");
            addImplicitResolver(Tag.MERGE, MERGE, "<");      // "<<: *defaults"
            addImplicitResolver(Tag.NULL, NULL, "~nN\0");
            addImplicitResolver(Tag.NULL, EMPTY, null);
        }
    }

    private Rule rule(Object item, int index, Map<String, Object> defaults) {
        String at = "rules[" + index + "]";
        Object given = item instanceof Map<?, ?> raw ? raw.get("name") : null;
        // the rule's name, when it has a valid one, is in every message about it: even an unknown field's
        Map<String, Object> m = mapping(item, given instanceof String n && NAME.matcher(n).matches()
                ? at + " (" + n + ")" : at, RULE);
        String name = string(m, "name", at);
        if (name == null || !NAME.matcher(name).matches()) {
            throw new ConfigException(source + ": " + at + ".name", name,
                    "expected a name of letters, digits, '.', '_' or '-', at most 64 characters, such as \"per-ip\"");
        }
        at = at + " (" + name + ")";
        Map<String, Object> f = new LinkedHashMap<>(defaults);
        f.putAll(m);
        String algorithmText = string(f, "algorithm", at);
        Algorithm algorithm = algorithmText == null ? null : Algorithm.fromId(field(at, "algorithm"), algorithmText);
        String limit = string(m, "limit", at);
        if (limit == null) {
            throw new ConfigException(field(at, "limit"), null, "expected a limit such as \"100/1m\" (required)");
        }
        Policy policy = PolicyParser.parse(field(at, "limit"), limit, algorithm);
        return new Rule(name,
                matcher(m, at),
                KeyResolvers.parse(field(at, "key"), orDefault(string(f, "key", at), "ip"), ips, named),
                policy,
                m.containsKey("tiers") ? tiers(m.get("tiers"), at + ".tiers", algorithm, policy.algorithm()) : null,
                cost(f, at),
                choice(f, "mode", at, Rule.Mode.ENFORCE),
                choice(f, "on-store-failure", at, Rule.FailureMode.ALLOW),
                choice(f, "on-missing-key", at, Rule.MissingKey.SKIP),
                statuses(m, at),
                bool(f, "denial-cache", at, true));
    }

    private boolean bool(Map<String, Object> m, String name, String at, boolean fallback) {
        Object v = m.get(name);
        if (v == null) {
            return fallback;
        }
        if (v instanceof Boolean b) {
            return b;
        }
        throw new ConfigException(field(at, name), text(v), "expected true or false");
    }

    /** {@code count-status: [401, 403]}: the rule counts only responses with these statuses. */
    private Set<Integer> statuses(Map<String, Object> m, String at) {
        Set<Integer> out = new LinkedHashSet<>();
        for (String s : strings(m, "count-status", at)) {
            if (!s.matches("[1-5][0-9][0-9]")) {
                throw new ConfigException(field(at, "count-status"), s, "expected HTTP statuses such as [401, 403]");
            }
            out.add(Integer.parseInt(s));
        }
        return out;
    }

    private RequestMatcher matcher(Map<String, Object> m, String at) {
        List<String> paths = strings(m, "paths", at);
        for (String p : paths) {
            if (!p.startsWith("/") || p.length() > PathGlob.MAX_LENGTH) {
                throw new ConfigException(field(at, "paths"), p.length() > 100 ? p.substring(0, 100) + "..." : p,
                        "expected a path pattern starting with '/', of at most " + PathGlob.MAX_LENGTH
                                + " characters, such as \"/api/**\"");
            }
        }
        Set<String> methods = new LinkedHashSet<>();
        for (String method : strings(m, "methods", at)) {
            if (!METHOD.matcher(method).matches()) {
                throw new ConfigException(field(at, "methods"), method, "expected an HTTP method such as \"POST\"");
            }
            methods.add(method.toUpperCase(Locale.ROOT));
        }
        return RequestMatcher.of(paths, methods);
    }

    private Rule.Tiers tiers(Object value, String at, Algorithm algorithm, Algorithm rules) {
        Map<String, Object> t = mapping(value, at, TIERS);
        String by = string(t, "by", at);
        if (by == null) {
            throw new ConfigException(field(at, "by"), null, "expected the key that picks the tier, such as \"attribute:plan\"");
        }
        KeyResolver selector = KeyResolvers.parse(field(at, "by"), by, ips, named);
        Object policies = t.get("policies");
        if (!(policies instanceof Map<?, ?> p) || p.isEmpty()) {
            throw new ConfigException(field(at, "policies"), text(policies),
                    "expected a mapping of tier to limit, such as {free: 100/1h, pro: 10000/1h}");
        }
        Map<String, Policy> out = new LinkedHashMap<>();
        // keyed by the form the selector gives ("#vip", or a name over 64 characters, as its hash)
        p.forEach((tier, limit) -> {
            String where = field(at, "policies." + text(tier));
            String stored = tier instanceof Map<?, ?> || tier instanceof List<?> ? null
                    : KeyResolvers.stored(text(tier));
            if (tier == null || stored == null) {      // a selector never gives a blank value: "" would never be picked
                throw new ConfigException(field(at, "policies"), text(tier),
                        "expected tier names such as {free: 100/1h, pro: 10000/1h}, not a blank one nor a list or"
                                + " mapping");
            }
            Policy policy = PolicyParser.parse(where, scalar(limit, where), algorithm);
            if (policy.algorithm() != rules) {
                throw new ConfigException(where, String.valueOf(limit), "expected a limit of the rule's algorithm, "
                        + rules.id() + ", not " + policy.algorithm().id() + ": a rule's tiers count in one state per"
                        + " key, which only one algorithm can read (a client switching tier would start afresh)");
            }
            if (out.put(stored, policy) != null) {       // 1 and '1', or free and ' free': one would be lost
                throw new ConfigException(where, text(tier), "expected a tier distinct from the others; an earlier one"
                        + " is the same as the selector gives it (trimmed, numbers as written)");
            }
        });
        return new Rule.Tiers(selector, out);
    }

    private Allowlist allowlist(Object value) {
        Map<String, Object> a = mapping(value, "allowlist", ALLOWLIST);
        List<Cidr> addresses = new ArrayList<>();
        for (String entry : strings(a, "addresses", "allowlist")) {
            addresses.add(Cidr.parse(field("allowlist", "addresses"), entry));
        }
        Set<String> keys = new HashSet<>();
        for (String key : strings(a, "keys", "allowlist")) {
            if (key.isBlank()) {            // resolvers give no blank key: it would match nothing
                throw new ConfigException(field("allowlist", "keys"), key, "expected key values such as"
                        + " [monitoring-key], not a blank one");
            }
            keys.addAll(KeyResolvers.normalized(key));      // as resolvers give them: a long API key as its hash
        }
        return new Allowlist(addresses, keys);
    }

    private long cost(Map<String, Object> f, String at) {
        Object v = f.get("cost");
        if (v == null) {
            return 1;
        }
        String s = scalar(v, field(at, "cost"));
        if (!s.matches("\\d{1,18}")) {
            throw new ConfigException(field(at, "cost"), s, "expected a whole number >= 0");
        }
        return Long.parseLong(s);
    }

    private <E extends Enum<E>> E choice(Map<String, Object> f, String name, String at, E fallback) {
        String v = string(f, name, at);
        if (v == null) {
            return fallback;
        }
        String wanted = v.trim().toUpperCase(Locale.ROOT).replace('-', '_');
        for (E e : fallback.getDeclaringClass().getEnumConstants()) {
            if (e.name().equals(wanted)) {
                return e;
            }
        }
        TreeSet<String> accepted = new TreeSet<>();
        for (E e : fallback.getDeclaringClass().getEnumConstants()) {
            accepted.add(e.name().toLowerCase(Locale.ROOT));
        }
        throw new ConfigException(field(at, name), v, "expected one of " + String.join(", ", accepted));
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> mapping(Object value, String at, Set<String> fields) {
        if (!(value instanceof Map<?, ?> raw)) {
            throw new ConfigException(source + ": " + at, text(value), "expected a mapping of " + new TreeSet<>(fields));
        }
        Map<String, Object> m = new LinkedHashMap<>();
        raw.forEach((k, v) -> m.put(String.valueOf(text(k)), v));
        for (String key : m.keySet()) {
            if (!fields.contains(key)) {
                throw new ConfigException(source + ": " + at, key, "unknown field; expected one of " + new TreeSet<>(fields));
            }
        }
        return m;
    }

    private String string(Map<String, Object> m, String name, String at) {
        Object v = m.get(name);
        return v == null ? null : scalar(v, field(at, name));
    }

    /** A list of scalars, or one scalar as a list of one. */
    private List<String> strings(Map<String, Object> m, String name, String at) {
        Object v = m.get(name);
        if (v == null) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        if (v instanceof List<?> items) {
            for (Object item : items) {
                out.add(scalar(item, field(at, name)));
            }
        } else {
            out.add(scalar(v, field(at, name)));
        }
        return out;
    }

    private String scalar(Object v, String parameter) {
        if (v instanceof String || v instanceof Number || v instanceof Boolean) {
            return String.valueOf(v);
        }
        throw new ConfigException(parameter, text(v), "expected a single value");
    }

    private String field(String at, String name) {
        return source + ": " + at + "." + name;
    }

    private ConfigException error(String at, String message) {
        return new ConfigException(source + ": " + at + ": " + message);
    }

    private static String orDefault(String value, String fallback) {
        return value == null ? fallback : value;
    }

    /**
     * @return {@code v} as {@code String.valueOf} writes it, but a list or mapping only up to the length that
     *     {@link ConfigException} quotes: aliases may repeat a collection inside itself a thousand times over (a 1 MiB
     *     file would print as gigabytes)
     */
    private static String text(Object v) {
        if (v == null) {
            return null;
        }
        StringBuilder b = new StringBuilder();
        append(b, v);
        return b.toString();
    }

    private static void append(StringBuilder b, Object v) {
        if (b.length() > TEXT_LIMIT) {
            return;
        }
        if (v instanceof Map<?, ?> m) {
            appendAll(b, '{', m.entrySet(), '}');
        } else if (v instanceof List<?> l) {
            appendAll(b, '[', l, ']');
        } else if (v instanceof Map.Entry<?, ?> e) {
            append(b, e.getKey());
            b.append('=');
            append(b, e.getValue());
        } else {
            b.append(v);
        }
    }

    /** As {@code AbstractCollection.toString} writes {@code items}, stopping once past {@link #TEXT_LIMIT}. */
    private static void appendAll(StringBuilder b, char open, Iterable<?> items, char close) {
        b.append(open);
        String separator = "";
        for (Object item : items) {
            if (b.length() > TEXT_LIMIT) {
                break;
            }
            b.append(separator);
            separator = ", ";
            append(b, item);
        }
        b.append(close);
    }
}
