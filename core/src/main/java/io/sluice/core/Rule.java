package io.sluice.core;

import io.sluice.core.policy.Algorithm;
import io.sluice.core.policy.Policy;
import io.sluice.core.request.RequestView;
import io.sluice.core.request.RequestMatcher;
import io.sluice.core.config.ConfigException;
import io.sluice.core.key.KeyResolver;
import io.sluice.core.key.KeyResolvers;
import io.sluice.core.log.LogText;
import io.sluice.core.internal.LogThrottle;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Which requests, keyed by what, under which policy, at what cost, enforced or shadow, and what to do when the
 * store fails. Build with {@link #builder(String)}.
 *
 * @param name names the rule in headers ({@code RateLimit-Policy: "per-ip"}), logs, metrics and stored keys
 * @param matcher which requests the rule applies to
 * @param key the partition a request counts in; an application's resolver is wrapped so that its keys are held as
 *     {@link KeyResolvers#stored} gives them (hashed when long or starting with {@code #}; see
 *     {@link KeyResolvers#storing})
 * @param policy the numbers (the default tier when {@code tiers} is set)
 * @param tiers optional: picks a policy per request from a value such as the attribute {@code plan}
 * @param cost the weight of one request, >= 0
 * @param mode enforce, or shadow (count and report, never deny or delay: see {@link Decision#shadowDelayMicros()})
 * @param onStoreFailure what happens while the store is unavailable
 * @param onMissingKey what happens to a request whose key cannot be resolved
 * @param countStatuses counting by outcome: when not empty, only responses with one of these statuses are counted
 *     (for example 401 and 403 on {@code POST /login}); the request is checked before it proceeds (denied when the
 *     key has no room for its cost) and charged after the response, by {@link Engine#charge}
 * @param denialCache whether a key this rule denied is denied again locally until its retry time, without a store
 *     call (on by default; it applies only where it is exact: see the engine's denial cache)
 */
public record Rule(
        String name,
        RequestMatcher matcher,
        KeyResolver key,
        Policy policy,
        Tiers tiers,
        long cost,
        Mode mode,
        FailureMode onStoreFailure,
        MissingKey onMissingKey,
        Set<Integer> countStatuses,
        boolean denialCache) {

    /** The key a request counts under when its key cannot be resolved and the rule says {@link MissingKey#ANONYMOUS}. */
    public static final String ANONYMOUS_KEY = "anonymous";

    /**
     * The key of a request whose key resolver threw, so that a request crafted to break an application's resolver can
     * neither step around the rule nor fail: all such requests count together under it, unless the resolver gives a
     * key of its own for them ({@link KeyResolver#keyOnFailure}; the resolvers parsed from configuration append the
     * client's address: {@code #key-failed|203.0.113.9}).
     */
    public static final String FAILED_KEY = KeyResolver.FAILED_KEY;
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

    public Rule {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new ConfigException("name", name,
                    "expected a rule name of letters, digits, '.', '_' or '-', at most 64 characters, such as \"per-ip\"");
        }
        if (matcher == null || key == null || policy == null || mode == null || onStoreFailure == null
                || onMissingKey == null) {
            throw new ConfigException("rule " + name + ": matcher, key, policy and modes are required");
        }
        key = KeyResolvers.storing(key);      // an application's resolver: its keys bounded, never one of Sluice's own
        if (tiers != null) {
            for (Map.Entry<String, Policy> t : tiers.policies().entrySet()) {
                if (t.getValue().algorithm() != policy.algorithm()) {
                    throw new ConfigException("rule " + name + ": tier \"" + t.getKey() + "\" uses "
                            + t.getValue().algorithm().id() + ", the rule " + policy.algorithm().id() + "; a rule's tiers"
                            + " count in one state per key, which only one algorithm can read");
                }
            }
        }
        if (cost < 0) {
            throw new ConfigException("cost", Long.toString(cost), "expected a cost >= 0");
        }
        countStatuses = countStatuses == null ? Set.of() : Set.copyOf(countStatuses);
        for (int status : countStatuses) {
            if (status < 100 || status > 599) {
                throw new ConfigException("count-status", Integer.toString(status), "expected HTTP statuses such as 401");
            }
        }
        if (!countStatuses.isEmpty() && policy.algorithm().concurrent()) {
            throw new ConfigException("count-status", countStatuses.toString(),
                    "counting by outcome applies to rates, not to concurrency limits");
        }
    }

    /** A rule that counts every request it matches, with the denial cache on. */
    public Rule(String name, RequestMatcher matcher, KeyResolver key, Policy policy, Tiers tiers, long cost, Mode mode,
            FailureMode onStoreFailure, MissingKey onMissingKey) {
        this(name, matcher, key, policy, tiers, cost, mode, onStoreFailure, onMissingKey, Set.of(), true);
    }

    /** A rule with the denial cache on. */
    public Rule(String name, RequestMatcher matcher, KeyResolver key, Policy policy, Tiers tiers, long cost, Mode mode,
            FailureMode onStoreFailure, MissingKey onMissingKey, Set<Integer> countStatuses) {
        this(name, matcher, key, policy, tiers, cost, mode, onStoreFailure, onMissingKey, countStatuses, true);
    }

    /** @return whether only responses of {@link #countStatuses()} are counted (checked before, charged after) */
    public boolean countsByOutcome() {
        return !countStatuses.isEmpty();
    }

    /** @return this rule with another mode */
    public Rule withMode(Mode m) {
        return new Rule(name, matcher, key, policy, tiers, cost, m, onStoreFailure, onMissingKey, countStatuses,
                denialCache);
    }

    /** @return the policy that applies to {@code request}: its tier's, or the rule's */
    public Policy policyFor(RequestView request) {
        if (tiers == null) {
            return policy;
        }
        try {
            return tiers.select(request, policy);
        } catch (RuntimeException e) {
            ResolverFailures.log(name, "tier", e);
            return policy;          // the rule's own policy, as for a request without a tier
        }
    }

    /**
     * @return the key this rule counts {@code request} under: {@link #resolveKey}, or {@link #ANONYMOUS_KEY} when the
     *     request has none and the rule counts such requests; null when the rule skips it ({@link MissingKey#SKIP})
     */
    String countedKey(RequestView request) {
        String key = resolveKey(request);
        if (key == null) {
            return onMissingKey == MissingKey.SKIP ? null : ANONYMOUS_KEY;
        }
        return key;
    }

    /**
     * @return this rule's key for {@code request}: null when it has none (see {@link #onMissingKey()}), and the
     *     resolver's {@link KeyResolver#keyOnFailure} ({@link #FAILED_KEY} by default) when it throws (logged at most
     *     once a minute)
     */
    public String resolveKey(RequestView request) {
        try {
            return key.resolve(request);
        } catch (RuntimeException e) {
            ResolverFailures.log(name, "key", e);
            try {
                String failed = key.keyOnFailure(request);
                return failed != null ? failed : FAILED_KEY;
            } catch (RuntimeException again) {
                return FAILED_KEY;
            }
        }
    }

    /**
     * Logs a resolver's exception at most once a minute per rule and kind (key or tier), with its stack trace and how
     * many went unlogged since: a hostile request may cause many. Its messages may quote the request (an application's
     * resolver parsing a header as a number), so they are logged {@link LogText#safe(Throwable) safe}.
     */
    private static final class ResolverFailures {
        private static final System.Logger LOG = System.getLogger(Rule.class.getName());
        /** Per rule name and kind. */
        private static final java.util.concurrent.ConcurrentMap<String, LogThrottle> LINES =
                new java.util.concurrent.ConcurrentHashMap<>();

        static void log(String rule, String what, RuntimeException e) {
            LogThrottle.Pass pass = LINES.computeIfAbsent(rule + "/" + what,
                    k -> new LogThrottle(60_000_000)).pass(System.nanoTime() / 1_000);
            if (pass == null) {
                return;
            }
            long skipped = pass.held();
            LOG.log(System.Logger.Level.WARNING, "rule \"" + rule + "\": the " + what + " resolver threw; "
                    + (what.equals("key") ? "such requests count under the resolver's keyOnFailure (" + FAILED_KEY
                            + ", per client for a key from configuration)" : "the rule's own policy applies") + " (logged at most once a minute; " + skipped
                    + " not logged since the last)", LogText.safe(e));
        }
    }

    /** @return whether this rule only reports */
    public boolean shadow() {
        return mode == Mode.SHADOW;
    }

    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** Enforce denies (and queues); shadow counts and reports, never denies or delays. */
    public enum Mode { ENFORCE, SHADOW }

    /** While the store is unavailable: allow, deny with 503, or fall back to a local limit (this node's share). */
    public enum FailureMode { ALLOW, DENY, LOCAL }

    /** A request whose key cannot be resolved is skipped by the rule, or counted under {@link #ANONYMOUS_KEY}. */
    public enum MissingKey { SKIP, ANONYMOUS }

    /**
     * Tiers: a value of the request picks the policy, such as {@code free: 100/1h, pro: 10000/1h}.
     *
     * @param selector resolves the tier name (for example {@code attribute:plan})
     * @param policies policy per tier name
     */
    public record Tiers(KeyResolver selector, Map<String, Policy> policies) {
        public Tiers {
            policies = Map.copyOf(policies);
        }

        /** @return the tier's policy, or {@code fallback} when the value is missing or unknown */
        public Policy select(RequestView request, Policy fallback) {
            String tier = selector.resolve(request);
            return tier == null ? fallback : policies.getOrDefault(tier, fallback);
        }
    }

    /** Builds a {@link Rule}; defaults: every request, key {@code global}, cost 1, enforce, allow on store failure, skip missing keys. */
    public static final class Builder {
        private final String name;
        private RequestMatcher matcher = RequestMatcher.ALL;
        private KeyResolver key = request -> "global";
        private Policy policy;
        private Tiers tiers;
        private long cost = 1;
        private Mode mode = Mode.ENFORCE;
        private FailureMode onStoreFailure = FailureMode.ALLOW;
        private MissingKey onMissingKey = MissingKey.SKIP;
        private Set<Integer> countStatuses = Set.of();
        private boolean denialCache = true;

        Builder(String name) {
            this.name = name;
        }

        public Builder matcher(RequestMatcher m) {
            this.matcher = m;
            return this;
        }

        public Builder key(KeyResolver k) {
            this.key = k;
            return this;
        }

        public Builder policy(Policy p) {
            this.policy = p;
            return this;
        }

        public Builder policy(String notation) {
            this.policy = Policy.parse(notation);
            return this;
        }

        public Builder tiers(Tiers t) {
            this.tiers = t;
            return this;
        }

        public Builder cost(long c) {
            this.cost = c;
            return this;
        }

        public Builder mode(Mode m) {
            this.mode = m;
            return this;
        }

        public Builder shadow() {
            this.mode = Mode.SHADOW;
            return this;
        }

        public Builder onStoreFailure(FailureMode f) {
            this.onStoreFailure = f;
            return this;
        }

        public Builder onMissingKey(MissingKey m) {
            this.onMissingKey = m;
            return this;
        }

        /** Counts only responses with these statuses (counting by outcome). */
        public Builder countStatuses(Set<Integer> statuses) {
            this.countStatuses = statuses;
            return this;
        }

        /** Turns the local cache of denied keys off for this rule (on by default). */
        public Builder denialCache(boolean on) {
            this.denialCache = on;
            return this;
        }

        public Rule build() {
            return new Rule(name, matcher, key, policy, tiers, cost, mode, onStoreFailure, onMissingKey, countStatuses,
                    denialCache);
        }
    }
}
