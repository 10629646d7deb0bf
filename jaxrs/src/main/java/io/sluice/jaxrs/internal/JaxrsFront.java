package io.sluice.jaxrs.internal;

import io.sluice.core.config.ConfigException;
import io.sluice.core.Rule;
import io.sluice.http.Parameters;
import io.sluice.http.SluiceConfig;
import io.sluice.http.internal.WebApps;
import io.sluice.http.spi.Integrations;
import io.sluice.http.spi.RuntimeIntegration;
import io.sluice.http.FrontDoor;
import io.sluice.core.internal.rules.QueuedLeases;
import io.sluice.core.key.KeyResolver;
import io.sluice.core.time.TimeSource;
import io.sluice.http.RuleSet;
import jakarta.ws.rs.core.Configuration;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The state one {@code RateLimitFeature} shares with the filters it registers: the front door, the names of rules
 * of the rules file that annotations reference (they apply only where referenced), and the application's named key
 * resolvers.
 */
public final class JaxrsFront {

    /** JAX-RS configuration properties with this prefix are Sluice parameters: {@value}. */
    static final String PROPERTY_PREFIX = Parameters.DEFAULT_PREFIX + ".";
    /**
     * The logger of the JAX-RS filter's start-up and checks: {@value}, the name of the feature's class, which
     * applications configure their logging by.
     */
    public static final String LOGGER_NAME = "io.sluice.jaxrs.RateLimitFeature";
    private static final System.Logger LOG = System.getLogger(LOGGER_NAME);

    private final FrontDoor door;
    private final boolean ownsDoor;
    private final Map<String, KeyResolver> keyResolvers;
    private final Function<String, String> annotationConfig;
    private final Set<String> referenced = ConcurrentHashMap.newKeySet();
    /** Per annotation rule name: the algorithm of the first annotation seen with it, and where that was. */
    private final Map<String, String[]> annotationAlgorithms = new HashMap<>();
    /** Per default annotation name (no {@code name}): the one class or method it was given to. */
    private final Map<String, String> defaultNames = new HashMap<>();
    /** The resource methods whose queues and concurrency limits were checked: a reload is checked against them. */
    private final List<MethodRules> leaseChecked = new ArrayList<>();
    /** The warnings of {@link #checkQueuedLeases} logged so far: once each, a sub-resource being read twice. */
    private final Set<String> leaseWarnings = ConcurrentHashMap.newKeySet();
    /** The response filter, one for every resource method. */
    public final RateLimitResponseFilter responses = new RateLimitResponseFilter();
    /** The completion filter and interceptor, one for every resource method. */
    public final ResponseCompletion completions = new ResponseCompletion();
    /** Removes {@link #checkReloadedRules} from the front door, which may be shared and outlive this application. */
    private final Runnable stopCheckingReloads;

    JaxrsFront(FrontDoor door, boolean ownsDoor, Map<String, KeyResolver> keyResolvers,
            Function<String, String> annotationConfig) {
        this.door = door;
        this.ownsDoor = ownsDoor;
        this.keyResolvers = Map.copyOf(keyResolvers);
        this.annotationConfig = annotationConfig;
        this.stopCheckingReloads = door.checkReloads(this::checkReloadedRules);
    }

    /**
     * The other side of {@link #checkSharedNames} and {@link #checkQueuedLeases}: a reloaded rules file whose rule takes
     * the name of an annotation seen so far with another algorithm, or that makes a queue and a concurrency limit of a
     * resource method seen so far defeat each other, is refused (the rules in force stay), as it would have stopped
     * start-up.
     */
    private synchronized void checkReloadedRules(RuleSet next) {
        for (MethodRules rules : leaseChecked) {
            checkQueuedLeases(rules, next);
        }
        for (Rule configured : next.rules()) {
            String[] annotation = annotationAlgorithms.get(configured.name());
            if (annotation != null && !annotation[0].equals(configured.policy().algorithm().id())) {
                throw new ConfigException("rule \"" + configured.name() + "\".algorithm",
                        configured.policy().algorithm().id(), "expected " + annotation[0] + ", the algorithm of the "
                        + "@RateLimit annotation of the same name on " + annotation[1] + ": one name is one counter, "
                        + "kept by one algorithm; set the rule's algorithm (gcra when none is given) or rename it");
            }
        }
    }

    /**
     * With CDI and a produced {@code SluiceConfig} (and no {@code explicit} one): the shared front door. Otherwise a
     * front door of its own, from {@code explicit} or else from parameters: system properties, environment variables,
     * MicroProfile Config, then the JAX-RS configuration properties {@code sluice.*}; deciding in a produced store when
     * there is one.
     */
    public static JaxrsFront open(SluiceConfig explicit, Configuration configuration, TimeSource time) {
        Integrations runtime = Integrations.find();
        RuntimeIntegration integration = runtime.integration();
        Map<String, KeyResolver> named = integration == null ? Map.of() : integration.keyResolvers();
        FrontDoor shared = explicit == null && integration != null ? integration.sharedFrontDoor() : null;
        if (shared != null) {
            LOG.log(Level.INFO, "Sluice rate limiting (JAX-RS): " + shared.rules().summary()
                    + " and @RateLimit annotations, from the application's produced SluiceConfig");
            return new JaxrsFront(shared, false, named, runtime.lookup());
        }
        SluiceConfig config = explicit != null ? explicit : config(configuration, named, runtime);
        FrontDoor door = integration == null ? FrontDoor.open(config, time)
                : integration.open(config, time);
        LOG.log(Level.INFO, "Sluice rate limiting (JAX-RS): " + door.rules().summary() + " and @RateLimit annotations\n  "
                + String.join("\n  ", integration == null ? config.description()
                        : integration.description(config)));
        return new JaxrsFront(door, true, named, runtime.lookup());
    }

    /**
     * @return the configuration of a front door of its own: the parameters of {@link #open}, a JAX-RS property whose
     *     value is a {@link Parameters.Sourced} named by its source in messages
     */
    static SluiceConfig config(Configuration configuration, Map<String, KeyResolver> named, Integrations runtime) {
        Parameters parameters = Parameters.of(Parameters.DEFAULT_PREFIX, properties(configuration), "JAX-RS property")
                .ownNamedWithPrefix();
        for (Map.Entry<String, Object> p : configuration.getProperties().entrySet()) {
            if (p.getKey().startsWith(PROPERTY_PREFIX) && p.getValue() instanceof Parameters.Sourced sourced) {
                parameters = parameters.withOwn(p.getKey().substring(PROPERTY_PREFIX.length()), sourced.value(),
                        sourced.source());
            }
        }
        return SluiceConfig.loadWithoutRules(runtime.addSources(parameters), WebApps.rulesSources(), named);
    }

    /** @return the JAX-RS properties named {@code sluice.<parameter>}, by parameter */
    private static Map<String, String> properties(Configuration configuration) {
        Map<String, String> own = new HashMap<>();
        configuration.getProperties().forEach((name, value) -> {
            if (name.startsWith(PROPERTY_PREFIX) && value != null) {
                own.put(name.substring(PROPERTY_PREFIX.length()), value.toString());
            }
        });
        if (own.containsKey("config-prefix")) {
            throw new ConfigException(PROPERTY_PREFIX + "config-prefix (JAX-RS property)", own.get("config-prefix"),
                    "the JAX-RS filter always reads sluice.* (config-prefix is an init-param of the servlet filter)");
        }
        return own;
    }

    public FrontDoor door() {
        return door;
    }

    public Map<String, KeyResolver> keyResolvers() {
        return keyResolvers;
    }

    /**
     * @return the runtime's configuration sources as a lookup (a property's value, or null), for the
     *     {@code @RateLimit} keys in MicroProfile Fault Tolerance's style: MicroProfile Config with {@code sluice-cdi};
     *     a lookup that finds nothing without a source
     */
    public Function<String, String> annotationConfig() {
        return annotationConfig;
    }

    /**
     * Checks that annotations sharing a name, which count in one state, use one algorithm: a state is read as the
     * algorithm that wrote it, so two algorithms on one name would each read the other's state as a fresh key, and a
     * client alternating between the two methods would never be limited. The same holds between an annotation and a
     * configured rule (parameter {@code limit}, the rules file) of its name, which counts elsewhere by its paths. A
     * name an annotation gets by default stands for one class or method: two overloads of a method, or two classes of
     * one simple name, would otherwise share one counter unasked.
     *
     * Runs while no rules file is reloaded: a reload checked against the annotations seen so far must not publish a
     * rule that an annotation recorded meanwhile conflicts with (lock order: the reload's lock, then this monitor).
     *
     * @throws ConfigException naming both places
     */
    void checkSharedNames(MethodRules rules) {
        door.whileRulesSteady(() -> checkSharedNamesNow(rules));
    }

    /**
     * The checks of a resource method's rules at once, {@link #checkQueuedLeases} then {@link #checkSharedNames}, while
     * no rules file is reloaded; a method that passes both is recorded for the checks of later reloads, and a method
     * refused records nothing.
     *
     * @throws ConfigException naming the method
     */
    public void check(MethodRules rules) {
        door.whileRulesSteady(() -> {
            synchronized (this) {
                checkQueuedLeases(rules);
                checkSharedNamesNow(rules);
                leaseChecked.add(rules);
            }
        });
    }

    private synchronized void checkSharedNamesNow(MethodRules rules) {
        // every check first, then the records: a method refused records nothing that would refuse a later one
        for (Map.Entry<String, String> d : rules.defaultNames().entrySet()) {
            String first = defaultNames.get(d.getKey());
            if (first != null && !first.equals(d.getValue())) {
                throw new ConfigException("@RateLimit on " + d.getValue() + " (" + d.getKey() + ").name", null,
                        "expected a name: the default one, \"" + d.getKey() + "\", is already that of the annotation "
                        + "on " + first + ", and the two would count in one counter unasked; set name, distinct to count "
                        + "apart or the same to count together");
            }
        }
        for (Rule r : rules.inlineRules()) {
            String algorithm = r.policy().algorithm().id();
            for (Rule configured : door.rules().rules()) {
                if (configured.name().equals(r.name()) && configured.policy().algorithm() != r.policy().algorithm()) {
                    throw new ConfigException("@RateLimit on " + rules.where() + " (" + r.name() + ").algorithm",
                            algorithm, "expected " + configured.policy().algorithm().id() + ", the algorithm of the "
                                    + "configured rule \"" + r.name() + "\" (parameter limit or the rules file): one "
                                    + "name is one counter, kept by one algorithm; give the annotation another name");
                }
            }
            String[] first = annotationAlgorithms.get(r.name());
            if (first != null && !first[0].equals(algorithm)) {
                throw new ConfigException("@RateLimit on " + rules.where() + " (" + r.name() + ").algorithm", algorithm,
                        "expected " + first[0] + ", the algorithm of the annotation of the same name on " + first[1]
                                + ": one name is one counter, kept by one algorithm; give the two different names");
            }
        }
        rules.defaultNames().forEach(defaultNames::putIfAbsent);
        for (Rule r : rules.inlineRules()) {
            annotationAlgorithms.putIfAbsent(r.name(), new String[] {r.policy().algorithm().id(), rules.where()});
        }
    }

    /**
     * Checks the queues ({@code max-wait}) and concurrency limits that apply together to the requests of a resource
     * method, as {@link QueuedLeases} checks the configured rules: the method's own rules (its annotations, a referenced
     * rule whatever its paths) all apply to each of its requests, the configured rules that no annotation references by
     * their paths and methods. The JAX-RS filter waits out a queue on the request thread holding the leases its
     * concurrency rules gave, so a lease shorter than the longest wait expires while the request waits. A pair that
     * may never meet is logged, once.
     *
     * @throws ConfigException naming the method, for such a pair that both apply to its every request, the concurrency
     *     rule enforcing
     */
    private void checkQueuedLeases(MethodRules rules) {
        checkQueuedLeases(rules, door.rules());
    }

    private void checkQueuedLeases(MethodRules rules, RuleSet current) {
        List<Rule> own = rules.resolveQuietly(current);
        Set<String> names = new HashSet<>();
        own.forEach(r -> names.add(r.name()));
        List<Rule> configured = current.rules().stream()
                .filter(r -> !referenced(r.name()) && !names.contains(r.name())).toList();
        for (String warning : QueuedLeases.checkTogether("@RateLimit on " + rules.where(), own, configured)) {
            if (leaseWarnings.add(warning)) {
                LOG.log(Level.WARNING, "Sluice rate limiting (JAX-RS): " + warning);
            }
        }
    }

    /** Notes rules of the rules file referenced by an annotation: the JAX-RS filter applies them only there. */
    public void reference(List<String> names) {
        referenced.addAll(names);
    }

    boolean referenced(String rule) {
        return referenced.contains(rule);
    }

    /** Closes the front door unless it is shared (CDI closes that one). */
    public void close() {
        stopCheckingReloads.run();
        if (ownsDoor) {
            door.close();
        }
    }
}
