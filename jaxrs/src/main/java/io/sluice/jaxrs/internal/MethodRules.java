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
import io.sluice.jaxrs.RateLimit;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The {@link RateLimit} rules of one resource method: the class's annotations, then the method's, where a method-level
 * annotation replaces the class-level one of the same name (see {@link RateLimit} for names). Inline limits become
 * rules at start-up; references to rules of the rules file are looked up in the rules in force at each request, so a
 * reloaded file takes effect.
 */
public final class MethodRules {

    /** The key of an inline rule without {@link RateLimit#key()}: {@value}. */
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
     * @param custom the application's named key resolvers (CDI)
     * @throws ConfigException naming the class or method and the annotation attribute
     */
    static MethodRules of(Class<?> resource, Method method, ClientIpResolver ips, Map<String, KeyResolver> custom) {
        return of(resource, method, ips, custom, false);
    }

    /** @param shadow parameter {@code shadow}: the inline rules count and report but never deny */
    public static MethodRules of(Class<?> resource, Method method, ClientIpResolver ips,
            Map<String, KeyResolver> custom, boolean shadow) {
        Rule.Mode mode = shadow ? Rule.Mode.SHADOW : Rule.Mode.ENFORCE;
        String base = simpleName(resource);
        Map<String, Entry> byName = new LinkedHashMap<>();
        byName.putAll(level(classAnnotations(resource), base, "@RateLimit on " + resource.getName(),
                resource.getName(), ips, custom, mode));
        byName.putAll(level(methodAnnotations(resource, method), truncate(base + "." + method.getName()),
                "@RateLimit on " + resource.getName() + "." + method.getName(), resource.getName() + "."
                        + method.getName() + parameters(method), ips, custom, mode));
        return new MethodRules(new ArrayList<>(byName.values()), resource.getName() + "." + method.getName());
    }

    /** @return no rules, for the method {@code where} ({@code Class.method}) whose annotations were refused */
    public static MethodRules none(String where) {
        return new MethodRules(List.of(), where);
    }

    /**
     * The class's annotations: its own or a superclass's, else those of the interfaces it implements, nearest first,
     * as JAX-RS inherits its own annotations.
     */
    static RateLimit[] classAnnotations(Class<?> resource) {
        return nearest(resource, c -> c.getDeclaredAnnotationsByType(RateLimit.class));
    }

    /**
     * The method's annotations; when it has none, those of the method it overrides or implements: in the superclasses,
     * then in the interfaces, as JAX-RS inherits {@code @GET} and {@code @Path} (Jakarta REST, 3.6). So an annotation on
     * an interface or a base class method counts whether the implementation hands the implementing method (Jersey) or
     * the interface's (RESTEasy), and an overriding method does not lose it.
     */
    public static RateLimit[] methodAnnotations(Class<?> resource, Method method) {
        // nearest first. RESTEasy hands over the interface as the resource class when the interface has @Path, so there
        // an interface's annotation is the nearest; a generic interface method (put(T)) is found by the passed method
        // only, so on Jersey, which passes the implementing put(String), it is not
        RateLimit[] found = nearest(resource, c -> declared(c, method));
        return found.length > 0 ? found : method.getAnnotationsByType(RateLimit.class);
    }

    /**
     * @return the first non-empty {@code on(c)}: for {@code resource} and its superclasses, then for the interfaces they
     *     implement and those interfaces' own, depth first; empty when none has any
     */
    private static RateLimit[] nearest(Class<?> resource, Function<Class<?>, RateLimit[]> on) {
        for (Class<?> c = resource; c != null && c != Object.class; c = c.getSuperclass()) {
            RateLimit[] found = on.apply(c);
            if (found.length > 0) {
                return found;
            }
        }
        for (Class<?> c = resource; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Class<?> i : c.getInterfaces()) {
                RateLimit[] found = inInterface(i, on);
                if (found.length > 0) {
                    return found;
                }
            }
        }
        return new RateLimit[0];
    }

    private static RateLimit[] inInterface(Class<?> iface, Function<Class<?>, RateLimit[]> on) {
        RateLimit[] found = on.apply(iface);
        for (int p = 0; found.length == 0 && p < iface.getInterfaces().length; p++) {
            found = inInterface(iface.getInterfaces()[p], on);
        }
        return found;
    }

    /** @return the annotations of the method of {@code c} with {@code method}'s name and parameters; none if absent */
    private static RateLimit[] declared(Class<?> c, Method method) {
        try {
            return c.getDeclaredMethod(method.getName(), method.getParameterTypes()).getAnnotationsByType(RateLimit.class);
        } catch (NoSuchMethodException | SecurityException e) {
            return new RateLimit[0];
        }
    }

    /** @return {@code (String, int)}: the parameter types of {@code method}, as overloads differ */
    private static String parameters(Method method) {
        StringBuilder s = new StringBuilder("(");
        for (Class<?> p : method.getParameterTypes()) {
            s.append(s.length() > 1 ? ", " : "").append(p.getSimpleName());
        }
        return s.append(')').toString();
    }

    private static Map<String, Entry> level(RateLimit[] annotations, String base, String at, String owner,
            ClientIpResolver ips, Map<String, KeyResolver> custom, Rule.Mode mode) {
        Map<String, Entry> out = new LinkedHashMap<>();
        int unnamed = 0;
        for (RateLimit a : annotations) {
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

    private static Entry entry(RateLimit a, String name, String at, String defaultFor, ClientIpResolver ips,
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
    List<Rule> resolve(RuleSet current) {
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
    boolean isEmpty() {
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
