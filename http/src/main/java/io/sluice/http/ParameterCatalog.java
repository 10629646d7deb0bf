package io.sluice.http;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every parameter a front door reads, in one place: its name, what it sets in one line, its default and which front
 * doors read it. {@link SluiceConfig} reads exactly these names (its {@link SluiceConfig#NAMES} is {@link #names()}),
 * an unknown name among a front door's own settings is refused naming them, a near miss among the system properties,
 * the environment and a {@link ParameterSource}'s names is warned of, and docs/configuration.md's table of parameters
 * lists them with the same defaults (a test holds the two together). A runtime's integration can describe its
 * properties from here, such as IDE metadata for {@code sluice.*} in Spring's {@code application.properties}.
 *
 * <p>The names are written without the prefix: parameter {@code limit} is init-param {@code limit}, system property
 * and MicroProfile Config property {@code sluice.limit}, environment variable {@code SLUICE_LIMIT}.
 */
public final class ParameterCatalog {

    /**
     * One parameter.
     *
     * @param name the name without prefix, such as {@code reload-interval}
     * @param description what it sets, one line
     * @param defaultValue its default as it would be written ({@code 10s}, {@code memory}), or null when it has none or
     *     the default is derived from other parameters (the rule's name from its key)
     * @param servletFilter whether the servlet filter reads it
     * @param jaxrs whether the JAX-RS filter reads it (as JAX-RS property {@code sluice.<name>} among others)
     */
    public record Entry(String name, String description, String defaultValue, boolean servletFilter, boolean jaxrs) {}

    private static final Map<String, Entry> ENTRIES = entries(
            both("limit", "One rule for every request, in the limit notation, such as 100/1m", null),
            both("name", "The name of the limit's rule in headers, logs and stored keys (default per- and the key)",
                    null),
            both("algorithm", "The limit's algorithm, such as gcra or token-bucket (default from the notation)", null),
            both("key", "The key the limit's rule counts in, such as ip, principal or header:X-Api-Key", "ip"),
            both("on-store-failure", "What the limit's rule answers while the store fails: allow, deny or local",
                    "allow"),
            both("on-missing-key", "What the limit's rule does with a request without its key: skip or anonymous",
                    "skip"),
            both("rules", "A rules file: a resource inside the WAR starting with /WEB-INF/, or a file path", null),
            both("reload-interval", "How often the rules file is looked at for changes; 0 = never", "10s"),
            both("settings-interval", "How often a node reads the version of the settings the fleet shares; 0 = "
                    + "messages only", "1s"),
            both("store", "Where the counters live: memory, or a Redis URL such as redis://host:6379", "memory"),
            both("max-keys", "The most keys the memory store tracks", "100000"),
            both("node-count", "How many nodes share the limits: sizes the local fallback", "1"),
            both("trusted-proxies", "Addresses and CIDR blocks of your proxies and load balancers, or none", null),
            both("client-ip-header", "The header your proxies write: x-forwarded-for or forwarded",
                    "x-forwarded-for"),
            both("exclude", "Path globs never limited nor answered with headers, such as /health, /static/**", null),
            both("shadow", "true: every rule counts and reports but never denies or delays", "false"),
            both("headers", "Which rate-limit headers responses carry: ietf, legacy, both or none", "both"),
            both("header-draft", "What t of the RateLimit header means: 11 or 10 (the draft's revision)", "11"),
            both("reset-format", "X-RateLimit-Reset as epoch-seconds or delta-seconds", "epoch-seconds"),
            both("partition-key", "hash: the IETF fields carry a hash of rule and key as pk", "none"),
            both("body", "The body of a 429 or 503: envelope, problem (RFC 9457) or none", "envelope"),
            both("deny-headers", "Headers added to every 429 and 503, Name: value, one per line or separated by |",
                    null),
            both("allowlist-addresses", "Client IPs and CIDR blocks that no rule limits", null),
            both("allowlist-keys", "Key values that no rule limits", null),
            both("allowlist-roles", "Container roles whose authenticated users no rule limits", null),
            new Entry("config-prefix", "The prefix of the system properties and environment variables the servlet "
                    + "filter reads (init-param only)", Parameters.DEFAULT_PREFIX, true, false));

    private ParameterCatalog() {}

    private static Entry both(String name, String description, String defaultValue) {
        return new Entry(name, description, defaultValue, true, true);
    }

    private static Map<String, Entry> entries(Entry... entries) {
        Map<String, Entry> byName = new LinkedHashMap<>();
        for (Entry e : entries) {
            byName.put(e.name(), e);
        }
        return byName;
    }

    /** @return every parameter, in the order of docs/configuration.md */
    public static List<Entry> entries() {
        return List.copyOf(ENTRIES.values());
    }

    /** @return every parameter's name, in the order of {@link #entries()} */
    public static List<String> names() {
        return List.copyOf(ENTRIES.keySet());
    }

    /** @return the parameter named {@code name} (without prefix), if there is one */
    public static Optional<Entry> find(String name) {
        return Optional.ofNullable(ENTRIES.get(name));
    }
}
