package io.sluice.http;

import io.sluice.core.config.ConfigException;
import io.sluice.core.Rule;
import io.sluice.http.Parameters.Parameter;
import io.sluice.core.key.ClientIpResolver;
import io.sluice.core.key.KeyResolver;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.store.Store;
import io.sluice.core.store.StoreProvider;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * The configuration of a front door, read from {@link Parameters} (system property, environment variable, a runtime's
 * {@link ParameterSource} such as MicroProfile Config, or the front door's own setting such as a filter init
 * parameter) and checked completely: an invalid value fails here, with
 * a message naming the parameter, where it came from and the value. Immutable; does no I/O (the rules file is read
 * when a {@link io.sluice.http.FrontDoor} opens).
 *
 * <p>See {@link ParameterCatalog} for the parameters and docs/configuration.md for their reference.
 */
public final class SluiceConfig {

    /** Every parameter name a front door accepts: {@link ParameterCatalog#names()}. */
    public static final List<String> NAMES = ParameterCatalog.names();
    /** Default of {@code key}: {@value}. */
    public static final String DEFAULT_KEY = "ip";
    /** Default of {@code reload-interval}, in seconds: {@value}. */
    public static final long DEFAULT_RELOAD_SECONDS = 10;
    /** Default of {@code settings-interval}, in milliseconds: {@value}. */
    public static final long DEFAULT_SETTINGS_MILLIS = 1_000;

    private final Rule limitRule;
    private final String rulesParameter;
    private final RulesSource rules;
    private final long reloadIntervalMicros;
    private final long settingsIntervalMicros;
    private final String store;
    private final long maxKeys;
    private final int nodeCount;
    private final ClientIpResolver clientIp;
    private final List<String> exclude;
    private final Allowlist allowlist;
    private final boolean shadow;
    private final Responder responder;
    private final List<String> description;
    private final Map<String, KeyResolver> namedKeys;

    private SluiceConfig(ConfigReader r, boolean rulesRequired) {
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
        // described when the store may share settings: on the memory store nothing reads them
        this.settingsIntervalMicros = r.durationMicros("settings-interval", DEFAULT_SETTINGS_MILLIS * 1_000,
                !store.equals("memory"), "0 (messages only)");
        this.maxKeys = r.number("max-keys", MemoryStore.DEFAULT_MAXIMUM_KEYS, 1, Long.MAX_VALUE);
        this.nodeCount = (int) r.number("node-count", 1, 1, 10_000);
        this.exclude = r.exclude();
        this.allowlist = r.allowlist();
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
        return new SluiceConfig(new ConfigReader(parameters, rulesSources, Map.of()), true);
    }

    /**
     * {@link #load(Parameters, Function)} where keys ({@code key}, and the rules file's {@code key} and tier
     * {@code by}) may also name a resolver the application provides, such as a CDI {@code @Named KeyResolver}.
     */
    public static SluiceConfig load(Parameters parameters, Function<String, RulesSource> rulesSources,
            Map<String, KeyResolver> namedKeys) {
        return new SluiceConfig(new ConfigReader(parameters, rulesSources, Map.copyOf(namedKeys)), true);
    }

    /**
     * {@link #load(Parameters, Function)} for a front door that has rules of its own (JAX-RS {@code @RateLimit}
     * annotations): neither {@code limit} nor {@code rules} is required.
     */
    public static SluiceConfig loadWithoutRules(Parameters parameters, Function<String, RulesSource> rulesSources) {
        return new SluiceConfig(new ConfigReader(parameters, rulesSources, Map.of()), false);
    }

    /**
     * {@link #loadWithoutRules(Parameters, Function)} where keys ({@code key}, and the rules file's {@code key} and tier
     * {@code by}) may also name a resolver the application provides, such as a CDI {@code @Named KeyResolver}.
     */
    public static SluiceConfig loadWithoutRules(Parameters parameters, Function<String, RulesSource> rulesSources,
            Map<String, KeyResolver> namedKeys) {
        return new SluiceConfig(new ConfigReader(parameters, rulesSources, Map.copyOf(namedKeys)), false);
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

    /**
     * @return how often a node checks the version of the settings a fleet shares (the rules document, overrides) in
     *     case it missed the message of a change, in microseconds; 0 = messages only. Only a store that shares settings
     *     (Redis) reads it.
     */
    public long settingsIntervalMicros() {
        return settingsIntervalMicros;
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

    /**
     * @return the allowlist of parameters {@code allowlist-addresses}, {@code allowlist-keys} and {@code allowlist-roles};
     *     the rules file's {@code allowlist} adds to it
     */
    public Allowlist allowlist() {
        return allowlist;
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
}
