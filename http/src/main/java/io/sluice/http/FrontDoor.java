package io.sluice.http;

import io.sluice.core.internal.rules.QueuedLeases;
import io.sluice.core.Decision;
import io.sluice.core.DecisionListener;
import io.sluice.core.Engine;
import io.sluice.core.request.PathGlob;
import io.sluice.core.request.RequestMatcher;
import io.sluice.core.request.RequestView;
import io.sluice.core.RuleOutcome;
import io.sluice.core.Rule;
import io.sluice.core.config.ConfigException;
import io.sluice.core.key.ClientIpResolver;
import io.sluice.core.store.MemoryStore;
import io.sluice.core.store.Store;
import io.sluice.core.internal.LogThrottle;
import io.sluice.core.policy.Outcome;
import io.sluice.core.time.TimeSource;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * Everything a front door does with one request, independent of the HTTP API: excluded paths, the allowlist, the
 * current rules (reloaded from the rules file), the engine, and the {@link Responder}. The servlet filter and the
 * JAX-RS filter only adapt their request to a {@link RequestView} and apply what the door answers.
 *
 * <pre>
 * Decision decision = door.check(view);
 * if (decision.allowed()) door.allowedHeaders(decision, view, sink);   // the headers, straight onto the response
 * else apply door.reply(decision, view);                                // status, headers and body
 * ... when the response completes, if awaitsCompletion(decision): door.completed(view, decision, status);
 * </pre>
 *
 * <p>The limiter must never be the reason a request fails by accident: an unexpected exception inside
 * {@link #check} is logged and the request allowed.
 *
 * <p>The rules in force are layered: parameter {@code limit}'s rule, then the rules file's (in order; reloaded when
 * the file changes), then the shared rules document's ({@link io.sluice.core.Operations#replaceRules}, in the schema of
 * a rules file; on Redis one for the whole fleet). A rule of the document replaces the local rule of its name in its
 * place; one of a new name comes after the local rules, in the document's order; the allowlists of the parameters, the
 * file and the document are merged; parameter {@code shadow=true} still puts every rule in shadow mode. A document must
 * pass what a reloaded rules file must ({@link #checkReloads}); one this node cannot use keeps the rules in force (see
 * {@link io.sluice.core.Operations#status()}). When the file reloads, the document's rules stay on top; when the
 * document changes, the file's rules in force are the base; both are checked and put in force under one lock. Counts
 * are kept by rule name and key: a rule that keeps its name and algorithm keeps its counts, whatever layer changed it.
 * The operator's side: {@link #admin()}.
 */
public final class FrontDoor implements AutoCloseable {

    /** The request attribute (JAX-RS: property) holding the {@link Decision}: {@value}. */
    public static final String DECISION_ATTRIBUTE = "io.sluice.decision";

    private static final System.Logger LOG = System.getLogger(FrontDoor.class.getName());

    private final Engine engine;
    private final Store store;
    private final RulesInForce rules;
    private final Administration admin;
    /** What a reloaded rules file must pass besides its own validity ({@link #checkReloads}). */
    private final List<Consumer<RuleSet>> reloadChecks;
    private final List<PathGlob> exclude;
    private final ClientIpResolver clientIp;
    private final Responder responder;
    private final boolean ownsStore;
    private final boolean shadow;
    /** Unexpected exceptions of {@link #check}: logged at most once a minute, as each request may cause one. */
    private final LogThrottle checkFailures = new LogThrottle(60_000_000);
    /** Unexpected exceptions of {@link #release} and {@link #charge}: logged at most once a minute. */
    private final LogThrottle completionFailures = new LogThrottle(60_000_000);

    private FrontDoor(Engine engine, Store store, RulesInForce rules, List<Consumer<RuleSet>> reloadChecks,
            List<PathGlob> exclude, ClientIpResolver clientIp, Responder responder, boolean ownsStore, boolean shadow) {
        this.reloadChecks = reloadChecks;
        this.ownsStore = ownsStore;
        this.shadow = shadow;
        this.engine = engine;
        this.store = store;
        this.rules = rules;
        this.exclude = exclude;
        this.clientIp = clientIp;
        this.responder = responder;
        this.admin = new Administration(engine, rules);
    }

    /**
     * Opens the store, reads the rules file, and builds the engine.
     *
     * @param time the clock of every decision (tests pass a manual one)
     * @throws ConfigException when the rules file cannot be read or is invalid, or the store cannot be opened
     */
    public static FrontDoor open(SluiceConfig config, TimeSource time) {
        return open(config, time, null, List.of());
    }

    /**
     * {@link #open(SluiceConfig, TimeSource)} with a store the application provides (a CDI-produced one), and
     * listeners of every decision.
     *
     * @param store the store to decide in instead of the configured one, or null; the application keeps owning it:
     *     {@link #close()} does not close it
     * @param listeners see every decision, after the shadow-mode report, and every change of the rules in force: a
     *     reload of the rules file, a shared rules document put in force ({@link DecisionListener#onRulesChanged})
     */
    public static FrontDoor open(SluiceConfig config, TimeSource time, Store store, List<DecisionListener> listeners) {
        return open(config, time, store, listeners, UnaryOperator.identity());
    }

    /**
     * {@link #open(SluiceConfig, TimeSource, Store, List)}, the engine deciding in {@code around} the store (metrics:
     * {@code MicrometerMetrics::instrument}). {@link #store()} and {@link #close()} still see the store itself.
     *
     * @param around given the store the front door decides in (the provided one, or else the configured one), returns
     *     the store the engine calls; {@link UnaryOperator#identity()} for the store itself
     */
    public static FrontDoor open(SluiceConfig config, TimeSource time, Store store, List<DecisionListener> listeners,
            UnaryOperator<Store> around) {
        List<Consumer<RuleSet>> reloadChecks = new CopyOnWriteArrayList<>();
        // copied as a list that takes a null one: the engine's builder refuses it, naming it
        RulesInForce rules = FrontDoorSetup.rules(config, time, reloadChecks, new ArrayList<>(listeners));
        Store chosen = store != null ? store : FrontDoorSetup.store(config, time);
        Engine.Builder engine = Engine.builder()
                .timeSource(time)
                .store(around.apply(chosen))
                .nodeCount(config.nodeCount())
                .localMaximumKeys(config.maxKeys())
                .settingsInterval(Duration.ofNanos(Math.multiplyExact(config.settingsIntervalMicros(), 1_000)))
                .rulesInForce(() -> rules.get().rules())        // named when the store fails
                .listener(new ShadowReport(time));
        listeners.forEach(engine::listener);
        List<PathGlob> exclude = config.exclude().stream().map(RequestMatcher::glob).toList();
        Engine built = engine.build();
        built.operations().readDocumentsWith(rules);      // and puts the store's document in force now
        return new FrontDoor(built, chosen, rules, reloadChecks, exclude, config.clientIp(), config.responder(),
                store == null, config.shadow());
    }

    /**
     * Decides a request: {@link Decision#NO_RULES} when its path is excluded or its client allowlisted, else the
     * engine's decision under the current rules.
     */
    public Decision check(RequestView request) {
        return check(request, RuleSet::rules);
    }

    /**
     * {@link #check(RequestView)} under rules chosen from the rules in force (the JAX-RS front door adds a resource
     * method's annotation rules, and leaves out rules the servlet filter already counted).
     */
    public Decision check(RequestView request, Function<RuleSet, List<Rule>> select) {
        return check(request, select, null);
    }

    /**
     * {@link #check(RequestView)} with a last word on a decision that admits the request after a delay: see
     * {@link Engine#check(RequestView, List, Engine.QueueGate)}. The servlet filter refuses to queue a request when
     * as many wait already as it may hold, and its listeners then see that 429, not an allowed request.
     */
    public Decision check(RequestView request, Engine.QueueGate queue) {
        return check(request, RuleSet::rules, queue);
    }

    private Decision check(RequestView request, Function<RuleSet, List<Rule>> select, Engine.QueueGate queue) {
        try {
            if (excluded(request) || preflight(request)) {
                return Decision.NO_RULES;
            }
            RuleSet current = rules.get();
            if (current.allowlist().bypasses(request, clientIp)) {
                return Decision.NO_RULES;
            }
            return engine.check(request, select.apply(current), queue);
        } catch (RuntimeException e) {
            logThrottled(checkFailures, Level.ERROR, "rate limiting failed unexpectedly; allowing the request", e);
            return Decision.NO_RULES;
        }
    }

    /**
     * @return the headers, and when denied the status and body, for {@code decision}; its epoch values count from
     *     {@link Decision#atMicros()}
     */
    public Reply reply(Decision decision, RequestView request) {
        return responder.reply(decision, request, decision.atMicros());
    }

    /**
     * @return the answer to a request this front door's owner holds or receives while it stops (a servlet filter being
     *     destroyed): 503, {@code Retry-After: }{@value Responder#SHUTTING_DOWN_RETRY_SECONDS}, and the configured
     *     body; see {@link Responder#shuttingDown}
     */
    public Reply shuttingDown() {
        return responder.shuttingDown(engine.timeSource().nowMicros());
    }

    /**
     * The headers {@link #reply} would hold for an allowed decision, added to {@code sink} in the same order, without
     * building a {@link Reply}: the path of every admitted request.
     *
     * @throws IllegalArgumentException when {@code decision} is not allowed (use {@link #reply})
     */
    public void allowedHeaders(Decision decision, RequestView request, Responder.HeaderSink sink) {
        responder.allowedHeaders(decision, request, decision.atMicros(), sink);
    }

    /**
     * @return whether parameter {@code shadow} is on: every rule counts and reports but never denies, those of a front
     *     door's own (the JAX-RS annotations) too
     */
    public boolean shadow() {
        return shadow;
    }

    /** Releases the concurrency leases of {@code decision}: call once when the response completes, on every path. */
    public void release(Decision decision) {
        release(decision, 0);
    }

    /**
     * {@link #release(Decision)} with the response's status, from which an adaptive concurrency limit learns (500 or
     * more, or an exception or a timeout given as 500, is a failure; 0 when unknown).
     */
    public void release(Decision decision, int status) {
        try {
            engine.release(decision, status);
        } catch (RuntimeException e) {
            logThrottled(completionFailures, Level.WARNING,
                    "releasing concurrency leases failed unexpectedly; they expire on their own", e);
        }
    }

    /**
     * The response is complete: releases the decision's leases and charges the rules that count by outcome for
     * {@code status}. Call once, on every path.
     */
    public void completed(RequestView request, Decision decision, int status) {
        release(decision, status);
        charge(request, decision, status);
    }

    /**
     * {@link #completed} without the release: charges the rules that count by outcome for {@code status}, for a front
     * door that released the leases earlier (an async request that timed out or failed, whose status the container
     * sets afterwards).
     */
    public void charge(RequestView request, Decision decision, int status) {
        if (!countsByOutcome(decision)) {
            return;
        }
        try {
            engine.charge(request, decision, status);
        } catch (RuntimeException e) {
            logThrottled(completionFailures, Level.WARNING, "charging a rule that counts by outcome failed", e);
        }
    }

    /**
     * Logs an unexpected exception with its stack trace at most once a minute per kind, with the count of those not
     * logged since: a failure that a request can cause, a hostile client can cause for every request it sends. Its
     * messages, which may quote the request, are logged {@link io.sluice.core.log.LogText#safe(Throwable) safe}.
     */
    private void logThrottled(LogThrottle lines, Level level, String message, RuntimeException e) {
        lines.log(LOG, level, engine.timeSource().nowMicros(), message, e);
    }

    /**
     * @return whether {@link #completed} has anything to do for {@code decision}: it holds concurrency leases, or a
     *     rule of it counts by outcome. When not, a front door need not follow the response to its end.
     */
    public static boolean awaitsCompletion(Decision decision) {
        return !decision.leases().isEmpty() || countsByOutcome(decision);
    }

    private static boolean countsByOutcome(Decision decision) {
        List<RuleOutcome> outcomes = decision.outcomes();
        for (int i = 0; i < outcomes.size(); i++) {
            if (outcomes.get(i).rule().countsByOutcome()) {
                return true;
            }
        }
        return false;
    }

    /**
     * @return whether {@code request} is a CORS preflight ({@code OPTIONS} with {@code Access-Control-Request-Method}):
     *     a browser sends one before a cross-origin call on its own, so it is not counted, and a 429 to it would reach
     *     the script as a CORS error rather than a 429
     */
    static boolean preflight(RequestView request) {
        return "OPTIONS".equals(request.method()) && request.header("Access-Control-Request-Method") != null;
    }

    private boolean excluded(RequestView request) {
        if (exclude.isEmpty()) {
            return false;       // without patterns the path is not even built
        }
        String path = RequestMatcher.normalized(request.path());   // as rules match it
        for (PathGlob p : exclude) {
            if (p.matches(path)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Admin: the state of {@code key} under the rule named {@code ruleName}, without consuming.
     *
     * @return null when no rule in force has that name
     */
    public Outcome inspect(String ruleName, String key, String tier) {
        for (Rule r : rules.get().rules()) {
            if (r.name().equals(ruleName)) {
                return engine.inspect(r, key, tier);
            }
        }
        return null;
    }

    /**
     * Admin: forgets (resets, unblocks) {@code key} under the rule named {@code ruleName}; false when no such rule.
     * Records nothing in the audit trail: {@link Administration#reset} does, with who.
     */
    public boolean reset(String ruleName, String key) {
        if (rules.get().rules().stream().noneMatch(r -> r.name().equals(ruleName))) {
            return false;
        }
        engine.reset(ruleName, key);
        return true;
    }

    /**
     * Adds a check that every rules file loaded from now on must pass, besides its own validity: a reload it refuses
     * (with a {@link ConfigException}) keeps the rules in force and logs why, as an invalid file does. A shared rules
     * document, composed with the local rules, must pass it too: refused, it is not written (or, read from the store,
     * not put in force here). The JAX-RS filter
     * checks that a reloaded rule named like a {@code @RateLimit} annotation keeps the annotation's algorithm, and that
     * no queue of a resource method's rules outlasts the lease of a concurrency limit there ({@link QueuedLeases}).
     *
     * @return removes this check (its owner, say a JAX-RS application on a shared front door, is closed)
     */
    public Runnable checkReloads(Consumer<RuleSet> check) {
        Consumer<RuleSet> registered = check::accept;        // an identity of its own: removes this registration only
        reloadChecks.add(registered);
        return () -> reloadChecks.remove(registered);
    }

    /**
     * Runs {@code action} while no rules file is being reloaded, no shared rules document is being put in force, and
     * neither can start: what it reads of {@link #rules()} stays in force until it returns, so a state it records and a
     * {@link #checkReloads} check reads is seen by every later change (a change checked before it, published after,
     * would otherwise slip through).
     */
    public void whileRulesSteady(Runnable action) {
        rules.whileSteady(action);
    }

    /** @return the rules in force now */
    public RuleSet rules() {
        return rules.get();
    }

    /**
     * @return the operator's side: the shared rules document, per-key overrides, resets recorded with who, the audit
     *     trail, and where each rule in force comes from (the admin endpoint's)
     */
    public Administration admin() {
        return admin;
    }

    /** @return the engine (for the programmatic API and administration) */
    public Engine engine() {
        return engine;
    }

    /** @return the store decisions are made in (for administration and tests: {@link MemoryStore#trackedKeys()}) */
    public Store store() {
        return store;
    }

    /** @return how client addresses are found (for keys of rules a front door builds itself) */
    public ClientIpResolver clientIp() {
        return clientIp;
    }

    /**
     * Closes the engine and the store; when the application provided the store, only {@link Engine#detach() detaches}
     * the engine from it (its threads end, its fleet listener goes) and leaves the store to the application.
     */
    @Override
    public void close() {
        if (ownsStore) {
            engine.close();
        } else {
            engine.detach();             // the application closes its store
        }
    }
}
