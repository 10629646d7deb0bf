package io.sluice.http;

import io.sluice.core.Rule;
import io.sluice.core.config.ConfigException;
import io.sluice.core.key.Cidr;
import io.sluice.core.key.ClientIpResolver;
import io.sluice.core.key.KeyResolver;
import io.sluice.core.key.KeyResolvers;
import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Policy;
import io.sluice.core.policy.PolicyParser;
import io.sluice.core.request.PathGlob;
import io.sluice.core.request.RequestMatcher;
import io.sluice.core.store.StoreProvider;
import io.sluice.http.Parameters.Parameter;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Reads the parameters of a {@link SluiceConfig} one by one, checking each, and remembers each effective value with
 * where it came from for the start-up log ({@link SluiceConfig#description()}).
 */
final class ConfigReader {

    /** {@link SluiceConfig}'s logger: its warnings are about the configuration. */
    private static final System.Logger LOG = System.getLogger(SluiceConfig.class.getName());
    private static final Pattern DENY_HEADER_SEPARATOR = Pattern.compile("\\r?\\n|\\|");

    /** Whether the IETF fields carry a hashed partition key. */
    private enum PartitionKey { NONE, HASH }

    final Parameters p;
    final Function<String, RulesSource> rulesSources;
    final Map<String, KeyResolver> named;
    final List<String> described = new ArrayList<>();

    ConfigReader(Parameters p, Function<String, RulesSource> rulesSources, Map<String, KeyResolver> named) {
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
        String spec = keyValue == null ? SluiceConfig.DEFAULT_KEY : keyValue.value();
        KeyResolver key = KeyResolvers.parse(keyValue == null ? "key" : keyValue.source(), spec, ips, named);
        Parameter nameValue = p.get("name");
        String name = nameValue == null ? SluiceConfig.defaultName(spec) : nameValue.value();
        if (!name.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,63}")) {
            throw new ConfigException(nameValue.source(), name,
                    "expected a rule name of letters, digits, '.', '_' or '-', at most 64 characters");
        }
        Rule rule = new Rule(name, RequestMatcher.ALL, key, policy, null, 1, Rule.Mode.ENFORCE,
                choice("on-store-failure", Rule.FailureMode.ALLOW), choice("on-missing-key", Rule.MissingKey.SKIP));
        note("limit", policy + " as rule \"" + name + "\", key " + key + ", on-store-failure "
                + lower(rule.onStoreFailure()) + ", on-missing-key " + lower(rule.onMissingKey()), limit, algorithm,
                keyValue, nameValue, p.get("on-store-failure"), p.get("on-missing-key"));   // each that shaped it
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

    /** The schemes of the Redis store, named when its jar is missing. */
    private static final String REDIS_SCHEMES = "rediss?(-sentinel|-cluster)?";

    String store() {
        Parameter s = p.get("store");
        String value = s == null ? "memory" : s.value();
        if (value.equalsIgnoreCase("memory")) {
            note("store", "memory", s);
            return "memory";
        }
        Optional<StoreProvider> provider = StoreProvider.find(value);
        if (provider.isPresent()) {
            provider.get().check(s.source(), value);    // errors name where it came from
            note("store", provider.get().redact(value), s);
            return value;
        }
        // rediss-sentinel:// and rediss-cluster:// too, which the Redis store refuses with a message of their own
        if (StoreProvider.scheme(value).filter(scheme -> scheme.matches(REDIS_SCHEMES)).isPresent()) {
            throw new ConfigException(s.source(), SluiceConfig.redact(value), "the Redis store is not on the class"
                    + " path: add the dependency io.sluice:sluice-redis (the jar sluice-redis-<version>.jar in WEB-INF/lib)");
        }
        throw new ConfigException(s.source(), SluiceConfig.redact(value),
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

    /**
     * Parameters {@code allowlist-addresses} (IPs and CIDR blocks), {@code allowlist-keys} (key values, normalized as
     * resolvers give them) and {@code allowlist-roles} (container roles), each a comma- or space-separated list.
     */
    Allowlist allowlist() {
        Parameter a = p.get("allowlist-addresses");
        List<Cidr> addresses = a == null ? List.of() : Cidr.parseList(a.source(), a.value());
        Set<String> keys = new HashSet<>();
        Parameter k = p.get("allowlist-keys");
        for (String key : k == null ? List.<String>of() : words(k.value())) {
            keys.addAll(KeyResolvers.normalized(key));
        }
        Parameter r = p.get("allowlist-roles");
        Set<String> roles = new HashSet<>(r == null ? List.of() : words(r.value()));
        roles.forEach(role -> Allowlist.checkRole(r.source(), role));
        Allowlist allowlist = new Allowlist(addresses, keys, roles);
        if (a != null || k != null || r != null) {
            note("allowlist", addresses.size() + " address blocks, " + keys.size() + " keys, roles " + new TreeSet<>(roles),
                    a, k, r);
        }
        return allowlist;
    }

    private static List<String> words(String value) {
        return Arrays.stream(value.split("[,\\s]+")).filter(w -> !w.isEmpty()).toList();
    }

    Responder responder() {
        Responder.Builder b = Responder.builder()
                .headers(choice("headers", Responder.HeaderStyle.BOTH))
                .reset(choice("reset-format", Responder.ResetFormat.EPOCH_SECONDS))
                .headerDraft(headerDraft())
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
        note("response", responder.toString(), p.get("headers"), p.get("header-draft"), p.get("reset-format"),
                p.get("partition-key"),
                p.get("body"), deny);
        return responder;
    }

    long durationMicros(String name, long fallback, boolean describe) {
        return durationMicros(name, fallback, describe, "0 (off)");
    }

    /** @param zero how the description shows 0 */
    long durationMicros(String name, long fallback, boolean describe, String zero) {
        Parameter d = p.get(name);
        long micros;
        try {
            micros = d == null ? fallback : d.value().equals("0") ? 0
                    : PolicyParser.parseDuration(d.source(), d.value()).toNanos() / 1_000;
        } catch (ArithmeticException tooLong) {         // beyond about 292 years in nanoseconds
            throw new ConfigException(d.source(), d.value(), "expected a duration such as \"10s\" or \"5m\"");
        }
        if (describe) {
            note(name, micros == 0 ? zero : PolicyParser.formatDuration(micros), d);
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

    /** {@code header-draft}: {@code 11} (the default) or {@code 10}, which revision's meaning {@code t} has. */
    private Responder.HeaderDraft headerDraft() {
        Parameter d = p.get("header-draft");
        if (d == null) {
            return Responder.HeaderDraft.DRAFT_11;
        }
        return switch (d.value().trim()) {
            case "11" -> Responder.HeaderDraft.DRAFT_11;
            case "10" -> Responder.HeaderDraft.DRAFT_10;
            default -> throw new ConfigException(d.source(), d.value(),
                    "expected 11 (draft-ietf-httpapi-ratelimit-headers-11, t is the effective window) or 10 (t is the "
                            + "reset time when allowed, the retry time when denied)");
        };
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
        Set<String> known = new HashSet<>(ParameterCatalog.names());
        for (String name : p.ownNames()) {
            if (!known.contains(name)) {
                throw new ConfigException(p.ownSource(name), name, "unknown parameter; expected one of "
                        + String.join(", ", ParameterCatalog.names()));
            }
        }
        List<String> overridable = new ArrayList<>(ParameterCatalog.names());
        overridable.remove("config-prefix");        // the filter's init-param only: it picks these names
        for (String typo : p.misspeltOverrides(overridable)) {
            LOG.log(Level.WARNING, typo + " It is ignored.");
        }
        Parameter prefix = p.get("config-prefix");
        if (prefix != null && !prefix.source().equals(p.ownSource("config-prefix"))) {
            LOG.log(Level.WARNING, prefix.source() + " is ignored: config-prefix is read only from "
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

    private static String lower(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
