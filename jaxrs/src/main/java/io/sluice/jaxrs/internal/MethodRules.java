package io.sluice.jaxrs.internal;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.request.RequestMatcher;
import io.sluice.core.Rule;
import io.sluice.core.config.ConfigException;
import io.sluice.core.policy.PolicyParser;
import io.sluice.http.RuleSet;
import io.sluice.core.key.ClientIpResolver;
import io.sluice.core.key.KeyResolver;
import io.sluice.core.key.KeyResolvers;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code @RateLimit} rules of one resource method: the class's annotations, then the method's, where a
 * method-level annotation replaces the class-level one of the same name (see {@code @RateLimit} for names). Inline
 * limits become rules at start-up; references to rules of the rules file are looked up in the rules in force at each
 * request, so a reloaded file takes effect. The API package reads the annotations and hands over their
 * {@link AnnotationValues}: nothing here names a type of the API.
 */
public final class MethodRules {

    /** The key of an inline rule without {@code key}: {@value}. */
    static final String DEFAULT_KEY = "ip";
    private static final Set<String> BUILT_IN_KEYS = Set.of("ip", "principal", "path", "method", "global");
    private static final System.Logger LOG = System.getLogger(MethodRules.class.getName());

    /**
     * One annotation made ready: an inline rule, or a reference by name with an optional cost (< 0: its own); for an
     * annotation named by default, the one place that name stands for (the class, or the method with its parameters).
     */
    private record Entry(Rule inline, String reference, long cost, String defaultFor) {}

    private final List<Entry> entries;
    private final String where;

    private MethodRules(List<Entry> entries, String where) {
        this.entries = List.copyOf(entries);
        this.where = where;
    }

    /**
     * @param classLevel the values of the class's annotations: its own or a superclass's, else those of the interfaces
     *     it implements, nearest first, as JAX-RS inherits its own annotations
     * @param methodLevel the values of the method's annotations; when it has none, those of the method it overrides or
     *     implements, as JAX-RS inherits {@code @GET} and {@code @Path}
     * @param custom the application's named key resolvers (CDI)
     * @param shadow parameter {@code shadow}: the inline rules count and report but never deny
     * @throws ConfigException naming the class or method and the annotation attribute
     */
    public static MethodRules of(Class<?> resource, Method method, List<AnnotationValues> classLevel,
            List<AnnotationValues> methodLevel, ClientIpResolver ips, Map<String, KeyResolver> custom, boolean shadow) {
        Rule.Mode mode = shadow ? Rule.Mode.SHADOW : Rule.Mode.ENFORCE;
        String base = simpleName(resource);
        Map<String, Entry> byName = new LinkedHashMap<>();
        byName.putAll(level(classLevel, base, "@RateLimit on " + resource.getName(), resource.getName(), ips, custom,
                mode));
        byName.putAll(level(methodLevel, truncate(base + "." + method.getName()),
                "@RateLimit on " + resource.getName() + "." + method.getName(), resource.getName() + "."
                        + method.getName() + parameters(method), ips, custom, mode));
        return new MethodRules(new ArrayList<>(byName.values()), resource.getName() + "." + method.getName());
    }

    /** @return no rules, for the method {@code where} ({@code Class.method}) whose annotations were refused */
    public static MethodRules none(String where) {
        return new MethodRules(List.of(), where);
    }

    /** @return {@code (String, int)}: the parameter types of {@code method}, as overloads differ */
    private static String parameters(Method method) {
        StringBuilder s = new StringBuilder("(");
        for (Class<?> p : method.getParameterTypes()) {
            s.append(s.length() > 1 ? ", " : "").append(p.getSimpleName());
        }
        return s.append(')').toString();
    }

    private static Map<String, Entry> level(List<AnnotationValues> annotations, String base, String at, String owner,
            ClientIpResolver ips, Map<String, KeyResolver> custom, Rule.Mode mode) {
        Map<String, Entry> out = new LinkedHashMap<>();
        int unnamed = 0;
        for (AnnotationValues a : annotations) {
            boolean byDefault = a.name().isBlank() && a.rule().isBlank();
            String name = !a.name().isBlank() ? a.name().trim() : !a.rule().isBlank() ? a.rule().trim()
                    : ++unnamed == 1 ? base : truncate(base) + "-" + unnamed;
            Entry entry = entry(a, name, at + " (" + name + ")", byDefault ? owner : null, ips, custom, mode);
            if (out.put(name, entry) != null) {
                throw new ConfigException(at, name, "expected one annotation per rule name at the same level; "
                        + "set distinct names");
            }
        }
        return out;
    }

    private static Entry entry(AnnotationValues a, String name, String at, String defaultFor, ClientIpResolver ips,
            Map<String, KeyResolver> custom, Rule.Mode mode) {
        if (a.cost() < -1) {
            throw new ConfigException(at + ".cost", Long.toString(a.cost()), "expected a cost >= 0");
        }
        if (!a.rule().isBlank()) {
            if (!a.value().isBlank() || !a.limit().isBlank() || !a.key().isBlank() || !a.algorithm().isBlank()
                    || !a.name().isBlank()) {
                throw new ConfigException(at + ".rule", a.rule(), "a reference to a rule of the rules file takes its "
                        + "limit, key, algorithm and name from it; expected only \"cost\" beside \"rule\"");
            }
            return new Entry(null, a.rule().trim(), a.cost(), null);
        }
        if (!a.value().isBlank() && !a.limit().isBlank()) {
            throw new ConfigException(at + ".limit", a.limit(), "expected either value or limit, not both");
        }
        String notation = a.value().isBlank() ? a.limit() : a.value();
        if (notation.isBlank()) {
            throw new ConfigException(at + ".value", null, "expected a limit such as \"100/1m\", or rule = \"<name of a "
                    + "rule of the rules file>\"");
        }
        Algorithm algorithm = a.algorithm().isBlank() ? null : Algorithm.fromId(at + ".algorithm", a.algorithm().trim());
        Rule rule = new Rule(name, RequestMatcher.ALL, key(a.key(), at + ".key", ips, custom),
                PolicyParser.parse(at + ".value", notation.trim(), algorithm), null, a.cost() < 0 ? 1 : a.cost(),
                mode, Rule.FailureMode.ALLOW, Rule.MissingKey.SKIP);
        return new Entry(rule, null, -1, defaultFor);
    }

    private static KeyResolver key(String spec, String at, ClientIpResolver ips, Map<String, KeyResolver> custom) {
        String s = spec.isBlank() ? DEFAULT_KEY : spec.trim();
        KeyResolver named = custom.get(s);
        if (named != null && !BUILT_IN_KEYS.contains(s)) {
            return KeyResolvers.perClientFailures(named, ips);
        }
        return KeyResolvers.parse(at, s, ips);
    }

    /** @throws ConfigException when a referenced rule is not among {@code rules} */
    public void checkReferences(RuleSet rules) {
        for (Entry e : entries) {
            if (e.reference() != null && find(rules, e.reference()) == null) {
                throw new ConfigException("@RateLimit on " + where + ".rule", e.reference(),
                        "expected the name of a rule of the rules file, one of " + rules.names());
            }
        }
    }

    /** @return the rules of this method's inline annotations */
    List<Rule> inlineRules() {
        return entries.stream().filter(e -> e.inline() != null).map(Entry::inline).toList();
    }

    /**
     * @return per inline rule named by default (no {@code name}), the one place the name stands for: the class
     *     ({@code com.example.Api}) or the method with its parameter types ({@code com.example.Api.get(String)})
     */
    Map<String, String> defaultNames() {
        Map<String, String> out = new LinkedHashMap<>();
        for (Entry e : entries) {
            if (e.defaultFor() != null) {
                out.put(e.inline().name(), e.defaultFor());
            }
        }
        return out;
    }

    /** @return the resource method, as errors name it ({@code Class.method}) */
    String where() {
        return where;
    }

    /** @return the names of rules of the rules file this method references */
    public List<String> references() {
        return entries.stream().filter(e -> e.reference() != null).map(Entry::reference).toList();
    }

    /** The rules file version a missing reference was last logged for. */
    private volatile RuleSet warnedFor;

    /** @return the rules of this method now: references looked up in {@code current}, applying to every request */
    public List<Rule> resolve(RuleSet current) {
        return resolve(current, warnedFor != current);
    }

    /**
     * @return the rules of this method under {@code rules}, which may not be in force (a reload being checked): as
     *     {@link #resolve}, a missing reference skipped without a warning
     */
    List<Rule> resolveQuietly(RuleSet rules) {
        return resolve(rules, false);
    }

    private List<Rule> resolve(RuleSet current, boolean warn) {
        List<Rule> out = new ArrayList<>(entries.size());
        for (Entry e : entries) {
            if (e.inline() != null) {
                out.add(e.inline());
                continue;
            }
            Rule r = find(current, e.reference());
            if (r == null) {
                if (warn) {         // once per rules file version, not once per request
                    LOG.log(System.Logger.Level.WARNING, "@RateLimit on " + where + ": rule \"" + e.reference()
                            + "\" is no longer in the rules file; not applied");
                }
                continue;
            }
            out.add(new Rule(r.name(), RequestMatcher.ALL, r.key(), r.policy(), r.tiers(), e.cost() < 0 ? r.cost() : e.cost(),
                    r.mode(), r.onStoreFailure(), r.onMissingKey(), r.countStatuses(), r.denialCache()));
        }
        if (warn && out.size() < entries.size()) {
            warnedFor = current;
        }
        return out;
    }

    /** @return whether the method has any rule of its own */
    public boolean isEmpty() {
        return entries.isEmpty();
    }

    private static Rule find(RuleSet rules, String name) {
        for (Rule r : rules.rules()) {
            if (r.name().equals(name)) {
                return r;
            }
        }
        return null;
    }

    private static String simpleName(Class<?> resource) {
        String s = resource.getSimpleName().replaceAll("[^A-Za-z0-9._-]", "-");
        return truncate(s.isEmpty() || !Character.isLetterOrDigit(s.charAt(0)) ? "resource" + s : s);
    }

    /** Room for a {@code -N} suffix within the 64 characters of a rule name. */
    private static String truncate(String name) {
        return name.length() > 60 ? name.substring(0, 60) : name;
    }
}
