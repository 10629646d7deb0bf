package io.sluice.http;

import io.sluice.core.config.ConfigException;
import io.sluice.core.policy.PolicyParser;
import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Policy;
import io.sluice.core.request.RequestMatcher;
import io.sluice.core.Rule;
import io.sluice.http.Parameters.Parameter;
import io.sluice.core.key.Cidr;
import io.sluice.core.key.ClientIpResolver;
import io.sluice.core.key.KeyResolver;
import io.sluice.core.key.KeyResolvers;
import io.sluice.core.request.PathGlob;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.store.Store;
import io.sluice.core.store.StoreProvider;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The configuration of a front door, read from {@link Parameters} (system property, environment variable, or the
 * front door's own setting such as a filter init parameter) and checked completely: an invalid value fails here, with
 * a message naming the parameter, where it came from and the value. Immutable; does no I/O (the rules file is read
 * when a {@link io.sluice.http.FrontDoor} opens).
 *
 * <p>See {@link #NAMES} for the parameters and the README for their reference.
 */
public final class SluiceConfig {

    private static final System.Logger LOG = System.getLogger(SluiceConfig.class.getName());

    /** Every parameter name a front door accepts. */
    public static final List<String> NAMES = List.of("limit", "name", "algorithm", "key", "on-store-failure",
            "on-missing-key", "rules", "reload-interval", "store", "max-keys", "node-count", "trusted-proxies",
            "client-ip-header", "exclude", "shadow", "headers", "reset-format", "partition-key", "body",
            "deny-headers", "config-prefix");
    /** Default of {@code key}: {@value}. */
    public static final String DEFAULT_KEY = "ip";
    /** Default of {@code reload-interval}, in seconds: {@value}. */
    public static final long DEFAULT_RELOAD_SECONDS = 10;

    private static final Pattern DENY_HEADER_SEPARATOR = Pattern.compile("\\r?\\n|\\|");

    private final Rule limitRule;
    private final String rulesParameter;
    private final RulesSource rules;
    private final long reloadIntervalMicros;
    private final String store;
    private final long maxKeys;
    private final int nodeCount;
    private final ClientIpResolver clientIp;
    private final List<String> exclude;
    private final boolean shadow;
    private final Responder responder;
    private final List<String> description;
    private final Map<String, KeyResolver> namedKeys;

    private SluiceConfig(Reader r, boolean rulesRequired) {
        this.namedKeys = r.named;
        r.rejectUnknown();
        this.clientIp = r.clientIp();
        this.limitRule = r.limitRule(clientIp);
        Parameter rulesValue = r.p.get("rules");
        this.rulesParameter = rulesValue == null ? "rules" : rulesValue.source();
        this.rules = rulesValue == null ? null : r.rulesSource(rulesValue);
        if (rulesRequired && limitRule == null && rules == null) {
            throw new ConfigException("limit", null, "expected a limit such as \"100/1m\", or a rules file in "
                    + "parameter \"rules\" (system property " + r.p.propertyName("limit") + ", environment variable "
                    + r.p.environmentName("limit") + ")");
        }
        this.reloadIntervalMicros = r.durationMicros("reload-interval", DEFAULT_RELOAD_SECONDS * 1_000_000, rules != null);
        this.store = r.store();
        this.maxKeys = r.number("max-keys", MemoryStore.DEFAULT_MAXIMUM_KEYS, 1, Long.MAX_VALUE);
        this.nodeCount = (int) r.number("node-count", 1, 1, 10_000);
        this.exclude = r.exclude();
        this.shadow = r.bool("shadow", false);
        this.responder = r.responder();
        this.description = List.copyOf(r.described);
    }

    /**
     * Reads and checks every parameter.
     *
     * @param rulesSources turns the value of {@code rules} into a source, or null when there is no such source (the
     *     servlet filter resolves {@code /WEB-INF/...} inside the WAR); use {@link #files()} for plain file paths
     * @throws ConfigException naming the first invalid parameter, its source and value
     */
    public static SluiceConfig load(Parameters parameters, Function<String, RulesSource> rulesSources) {
        return new SluiceConfig(new Reader(parameters, rulesSources, Map.of()), true);
    }

    /**
     * {@link #load(Parameters, Function)} where keys ({@code key}, and the rules file's {@code key} and tier
     * {@code by}) may also name a resolver the application provides, such as a CDI {@code @Named KeyResolver}.
     */
    public static SluiceConfig load(Parameters parameters, Function<String, RulesSource> rulesSources,
            Map<String, KeyResolver> namedKeys) {
        return new SluiceConfig(new Reader(parameters, rulesSources, Map.copyOf(namedKeys)), true);
    }

    /**
     * {@link #load(Parameters, Function)} for a front door that has rules of its own (JAX-RS {@code @RateLimit}
     * annotations): neither {@code limit} nor {@code rules} is required.
     */
    public static SluiceConfig loadWithoutRules(Parameters parameters, Function<String, RulesSource> rulesSources) {
        return new SluiceConfig(new Reader(parameters, rulesSources, Map.of()), false);
    }

    /**
     * {@link #loadWithoutRules(Parameters, Function)} where keys ({@code key}, and the rules file's {@code key} and tier
     * {@code by}) may also name a resolver the application provides, such as a CDI {@code @Named KeyResolver}.
     */
    public static SluiceConfig loadWithoutRules(Parameters parameters, Function<String, RulesSource> rulesSources,
            Map<String, KeyResolver> namedKeys) {
        return new SluiceConfig(new Reader(parameters, rulesSources, Map.copyOf(namedKeys)), false);
    }

    /** @return a resolver of {@code rules} values that are file paths; null for a value that is no valid path */
    public static Function<String, RulesSource> files() {
        return value -> {
            try {
                return RulesSource.file(Path.of(value));
            } catch (InvalidPathException e) {    // an error naming the parameter, not this exception
                return null;
            }
        };
    }

    /** @return the rule of parameter {@code limit}, or null when only a rules file is configured */
    public Rule limitRule() {
        return limitRule;
    }

    /** @return the rules file, or null */
    public RulesSource rules() {
        return rules;
    }

    /** @return how parameter {@code rules} was set, such as {@code rules (init-param)}, for error messages */
    public String rulesParameter() {
        return rulesParameter;
    }

    /** @return how often the rules file is examined for changes, in microseconds; 0 = never */
    public long reloadIntervalMicros() {
        return reloadIntervalMicros;
    }

    /** @return {@code memory}, or a Redis URL */
    public String store() {
        return store;
    }

    /** @return the most keys the memory store tracks */
    public long maxKeys() {
        return maxKeys;
    }

    /** @return how many nodes share the limits (sizes the local fallback) */
    public int nodeCount() {
        return nodeCount;
    }

    /** @return how the client IP is found */
    public ClientIpResolver clientIp() {
        return clientIp;
    }

    /** @return path globs that are never limited */
    public List<String> exclude() {
        return exclude;
    }

    /** @return whether every rule only counts and reports */
    public boolean shadow() {
        return shadow;
    }

    /** @return how decisions become responses */
    public Responder responder() {
        return responder;
    }

    /** @return the resolvers the application provides by name (CDI {@code @Named KeyResolver}s), usable as keys */
    public Map<String, KeyResolver> namedKeys() {
        return namedKeys;
    }

    /** @return the effective configuration, one line per setting with its source, for the start-up log */
    public List<String> description() {
        return description;
    }

    /**
     * @param producedStore the store the application produces (CDI), which the front doors decide in instead of
     *     parameter {@code store}; null for none
     * @return {@link #description()}, its store line naming the produced store when there is one
     */
    public List<String> description(Store producedStore) {
        if (producedStore == null) {
            return description;
        }
        String store = "store = the application's produced " + producedStore.getClass().getSimpleName() + " (CDI)";
        return description.stream().map(line -> line.startsWith("store = ") ? store : line).toList();
    }

    /** Reads parameters one by one, remembering each effective value for the log. */
    private static final class Reader {
        final Parameters p;
        final Function<String, RulesSource> rulesSources;
        final Map<String, KeyResolver> named;
        final List<String> described = new ArrayList<>();

        Reader(Parameters p, Function<String, RulesSource> rulesSources, Map<String, KeyResolver> named) {
            this.p = p;
            this.rulesSources = rulesSources;
            this.named = named;
        }

        ClientIpResolver clientIp() {
            Parameter proxies = p.get("trusted-proxies");
            List<Cidr> trusted = proxies == null || proxies.value().equalsIgnoreCase("none") ? List.of()
                    : Cidr.parseList(proxies.source(), proxies.value());
            Parameter header = p.get("client-ip-header");
            ClientIpResolver.Header h = header == null ? ClientIpResolver.Header.X_FORWARDED_FOR
                    : ClientIpResolver.Header.parse(header.source(), header.value());
            ClientIpResolver resolver = ClientIpResolver.trusting(trusted, h);
            note("client ip", resolver.toString(), proxies, trusted.isEmpty() ? null : header);  // a header counts behind proxies
            return resolver;
        }

        Rule limitRule(ClientIpResolver ips) {
            Parameter limit = p.get("limit");
            if (limit == null) {
                for (String only : List.of("name", "algorithm", "key", "on-store-failure", "on-missing-key")) {
                    Parameter stray = p.get(only);
                    if (stray != null) {
                        throw new ConfigException(stray.source(), stray.value(), "applies only to the rule of parameter "
                                + "\"limit\", which is not set; set it per rule in the rules file instead");
                    }
                }
                return null;
            }
            Parameter algorithm = p.get("algorithm");
            Algorithm a = algorithm == null ? null : Algorithm.fromId(algorithm.source(), algorithm.value());
            Policy policy = PolicyParser.parse(limit.source(), limit.value(), a);
            Parameter keyValue = p.get("key");
            String spec = keyValue == null ? DEFAULT_KEY : keyValue.value();
            KeyResolver key = KeyResolvers.parse(keyValue == null ? "key" : keyValue.source(), spec, ips, named);
            Parameter nameValue = p.get("name");
            String name = nameValue == null ? defaultName(spec) : nameValue.value();
            if (!name.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,63}")) {
                throw new ConfigException(nameValue.source(), name,
                        "expected a rule name of letters, digits, '.', '_' or '-', at most 64 characters");
            }
            Rule rule = new Rule(name, RequestMatcher.ALL, key, policy, null, 1, Rule.Mode.ENFORCE,
                    choice("on-store-failure", Rule.FailureMode.ALLOW), choice("on-missing-key", Rule.MissingKey.SKIP));
            note("limit", policy + " as rule \"" + name + "\", key " + key + ", on-store-failure "
                    + lower(rule.onStoreFailure()) + ", on-missing-key " + lower(rule.onMissingKey()), limit);
            return rule;
        }

        RulesSource rulesSource(Parameter value) {
            RulesSource source = rulesSources.apply(value.value());
            if (source == null) {
                throw new ConfigException(value.source(), value.value(),
                        "expected a file path, or a resource inside the WAR starting with /WEB-INF/; there is none");
            }
            note("rules", source.name(), value);
            return source;
        }

        String store() {
            Parameter s = p.get("store");
            String value = s == null ? "memory" : s.value();
            if (value.equalsIgnoreCase("memory")) {
                note("store", "memory", s);
                return "memory";
            }
            Optional<String> scheme = StoreProvider.scheme(value);
            // rediss-sentinel:// and rediss-cluster:// too, which the Redis store refuses with a message of their own
            if (scheme.isPresent() && scheme.get().matches("rediss?(-sentinel|-cluster)?")) {
                StoreProvider provider = StoreProvider.find(value).orElseThrow(() -> new ConfigException(
                        s.source(), redact(value), "the Redis store is not on the class path: add the dependency"
                                + " io.sluice:sluice-redis (the jar sluice-redis-<version>.jar in WEB-INF/lib)"));
                provider.check(s.source(), value);    // errors name where it came from
                note("store", redact(value), s);
                return value;
            }
            throw new ConfigException(s.source(), redact(value),
                    "expected \"memory\" or a Redis URL such as \"redis://localhost:6379\","
                            + " \"redis-sentinel://10.0.0.5:26379/mymaster\" or \"redis-cluster://10.0.0.7:7000\"");
        }

        List<String> exclude() {
            Parameter e = p.get("exclude");
            List<String> globs = new ArrayList<>();
            if (e != null && !e.value().equalsIgnoreCase("none")) {
                for (String glob : e.value().split("[,\\s]+")) {
                    if (glob.isEmpty()) {
                        continue;
                    }
                    if (!glob.startsWith("/") || glob.length() > PathGlob.MAX_LENGTH) {
                        throw new ConfigException(e.source(), glob.length() > 100 ? glob.substring(0, 100) + "..." : glob,
                                "expected a path pattern starting with '/', of at most " + PathGlob.MAX_LENGTH
                                        + " characters, such as \"/health\" or \"/static/**\"");
                    }
                    globs.add(glob);
                }
            }
            note("exclude", globs.toString(), e);
            return List.copyOf(globs);
        }

        Responder responder() {
            Responder.Builder b = Responder.builder()
                    .headers(choice("headers", Responder.HeaderStyle.BOTH))
                    .reset(choice("reset-format", Responder.ResetFormat.EPOCH_SECONDS))
                    .partitionKey(choice("partition-key", PartitionKey.NONE) == PartitionKey.HASH)
                    .body(choice("body", Responder.BodyFormat.ENVELOPE));
            Parameter deny = p.get("deny-headers");
            if (deny != null && !deny.value().equalsIgnoreCase("none")) {
                for (String line : DENY_HEADER_SEPARATOR.split(deny.value())) {
                    if (line.isBlank()) {
                        continue;
                    }
                    int colon = line.indexOf(':');
                    if (colon <= 0) {
                        throw new ConfigException(deny.source(), line.trim(),
                                "expected \"Name: value\" lines (or separated by '|'), such as \"Access-Control-Allow-Origin: *\"");
                    }
                    try {
                        b.denyHeader(line.substring(0, colon).trim(), line.substring(colon + 1).trim());
                    } catch (ConfigException ex) {
                        throw new ConfigException(deny.source() + ": " + ex.getMessage().replaceFirst("^deny-headers: ", ""));
                    }
                }
            }
            Responder responder = b.build();
            note("response", responder.toString(), p.get("headers"), p.get("reset-format"), p.get("partition-key"),
                    p.get("body"), deny);
            return responder;
        }

        long durationMicros(String name, long fallback, boolean describe) {
            Parameter d = p.get(name);
            long micros;
            try {
                micros = d == null ? fallback : d.value().equals("0") ? 0
                        : PolicyParser.parseDuration(d.source(), d.value()).toNanos() / 1_000;
            } catch (ArithmeticException tooLong) {         // beyond about 292 years in nanoseconds
                throw new ConfigException(d.source(), d.value(), "expected a duration such as \"10s\" or \"5m\"");
            }
            if (describe) {
                note(name, micros == 0 ? "0 (off)" : PolicyParser.formatDuration(micros), d);
            }
            return micros;
        }

        long number(String name, long fallback, long min, long max) {
            Parameter n = p.get(name);
            if (n == null) {
                return fallback;
            }
            long value;
            try {
                value = n.value().matches("[0-9]{1,19}") ? Long.parseLong(n.value()) : -1;    // ASCII digits only
            } catch (NumberFormatException beyondLong) {
                value = -1;
            }
            if (value < min || value > max) {
                throw new ConfigException(n.source(), n.value(), "expected a whole number between " + min + " and " + max);
            }
            note(name, Long.toString(value), n);
            return value;
        }

        boolean bool(String name, boolean fallback) {
            Parameter b = p.get(name);
            if (b == null) {
                note(name, Boolean.toString(fallback));
                return fallback;
            }
            if (!b.value().equalsIgnoreCase("true") && !b.value().equalsIgnoreCase("false")) {
                throw new ConfigException(b.source(), b.value(), "expected true or false");
            }
            note(name, b.value().toLowerCase(Locale.ROOT), b);
            return Boolean.parseBoolean(b.value());
        }

        <E extends Enum<E>> E choice(String name, E fallback) {
            Parameter c = p.get(name);
            if (c == null) {
                return fallback;
            }
            String wanted = c.value().toUpperCase(Locale.ROOT).replace('-', '_');
            List<String> accepted = new ArrayList<>();
            for (E e : fallback.getDeclaringClass().getEnumConstants()) {
                if (e.name().equals(wanted)) {
                    return e;
                }
                accepted.add(lower(e));
            }
            throw new ConfigException(c.source(), c.value(), "expected one of " + String.join(", ", accepted));
        }

        void rejectUnknown() {
            Set<String> known = new HashSet<>(NAMES);
            for (String name : p.ownNames()) {
                if (!known.contains(name)) {
                    throw new ConfigException(p.ownSource(name), name, "unknown parameter; expected one of "
                            + String.join(", ", NAMES));
                }
            }
            List<String> overridable = new ArrayList<>(NAMES);
            overridable.remove("config-prefix");        // the filter's init-param only: it picks these names
            for (String typo : p.misspeltOverrides(overridable)) {
                LOG.log(System.Logger.Level.WARNING, typo + " It is ignored.");
            }
            Parameter prefix = p.get("config-prefix");
            if (prefix != null && !prefix.source().equals(p.ownSource("config-prefix"))) {
                LOG.log(System.Logger.Level.WARNING, prefix.source() + " is ignored: config-prefix is read only from "
                        + "the servlet filter's init-param, as it names the system properties and variables to read");
            }
        }

        /** Describes setting {@code name}: where it came from, or "(default)" when none of {@code from} is set. */
        void note(String name, String value, Parameter... from) {
            List<String> sources = new ArrayList<>();
            for (Parameter f : from) {
                if (f != null) {
                    sources.add(f.source());
                }
            }
            described.add(name + " = " + value + (sources.isEmpty() ? " (default)"
                    : " (from " + String.join(", ", sources) + ")"));
        }
    }

    /** Whether the IETF fields carry a hashed partition key. */
    private enum PartitionKey { NONE, HASH }

    /** @return {@code per-} and the key specification in lower case: {@code header:X-Api-Key} → {@code per-header-x-api-key} */
    static String defaultName(String keySpec) {
        String slug = keySpec.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("^-+|-+$", "");
        String name = "per-" + slug;
        return name.length() > 64 ? name.substring(0, 64) : name;
    }

    /** @return a Redis URL without its password: {@code redis://user:secret@host} → {@code redis://user:***@host} */
    static String redact(String url) {
        return StoreProvider.redactPassword(url);
    }

    private static String lower(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
