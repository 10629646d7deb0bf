package io.sluice.filter;

import io.sluice.core.Decision;
import io.sluice.core.Engine;
import io.sluice.core.policy.Outcome;
import io.sluice.core.request.RequestView;
import io.sluice.core.RuleOutcome;
import io.sluice.core.config.ConfigException;
import io.sluice.http.Parameters;
import io.sluice.http.RulesSource;
import io.sluice.http.SluiceConfig;
import io.sluice.http.FrontDoor;
import io.sluice.http.spi.Integrations;
import io.sluice.http.spi.RuntimeIntegration;
import io.sluice.core.time.TimeSource;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Rate limiting for any WAR: declare it in {@code web.xml} with init parameters, or override them with system
 * properties ({@code -Dsluice.limit=100/1m}) and environment variables ({@code SLUICE_LIMIT}); see
 * docs/configuration.md for every parameter. Every response carries the rate-limit headers; a denied request gets 429
 * (503 when the store is down and a rule denies meanwhile, or the filter is being destroyed) and never reaches the
 * application.
 *
 * <pre>
 * &lt;filter&gt;
 *   &lt;filter-name&gt;sluice&lt;/filter-name&gt;
 *   &lt;filter-class&gt;io.sluice.filter.RateLimitFilter&lt;/filter-class&gt;
 *   &lt;init-param&gt;&lt;param-name&gt;limit&lt;/param-name&gt;&lt;param-value&gt;100/1m&lt;/param-value&gt;&lt;/init-param&gt;
 * &lt;/filter&gt;
 * &lt;filter-mapping&gt;&lt;filter-name&gt;sluice&lt;/filter-name&gt;&lt;url-pattern&gt;/*&lt;/url-pattern&gt;&lt;/filter-mapping&gt;
 * </pre>
 *
 * <p>With a runtime integration on the class path ({@link Integrations}: {@code sluice-cdi} provides CDI and
 * MicroProfile Config), the filter uses what the application provides: with a produced {@link SluiceConfig} it shares
 * one front door with the JAX-RS filter and {@code @Inject Engine}, and init-params are ignored; else its parameters
 * are read as usual (MicroProfile Config is a source when present) and a produced {@code Store} is used. Without
 * {@code sluice-cdi}, or without CDI, no CDI class is loaded.
 *
 * <p>The {@link Decision} is left in request attribute {@value FrontDoor#DECISION_ATTRIBUTE} for later filters and the
 * application. Concurrency leases are released when the response completes, for async requests too.
 *
 * <p>Queueing ({@code max-wait}, enforced rules only: a rule in shadow mode delays nothing, see
 * {@link Decision#shadowDelayMicros()}): a request the engine admits after a delay is put in asynchronous mode
 * ({@code startAsync}) and dispatched again when its delay has passed, so no request thread waits; the filter and
 * everything before it in the chain must be {@code <async-supported>true</async-supported>}. Where they are not, the
 * request waits on its own thread (at most {@code max-wait}) and a warning says so once.
 */
public class RateLimitFilter implements Filter {

    private static final System.Logger LOG = System.getLogger(RateLimitFilter.class.getName());

    /**
     * The most requests one filter holds queued at once: {@value}. Each waits in asynchronous mode, holding its
     * connection and a scheduled task, for up to its rule's {@code max-wait}; a rule keyed per client bounds the queue of
     * each client, not the number of clients. Past the bound a request admitted after a delay is refused with 429 and
     * {@code Retry-After} its delay, so a flood of distinct clients cannot make the queue grow without end.
     */
    static final int MAX_QUEUED = 10_000;

    private final TimeSource time;
    private final DelayScheduler scheduler;
    private final int maxQueued;
    /** The front door given by the application (Spring Boot's auto-configuration), which it keeps owning; or null. */
    private final FrontDoor given;
    /** Requests queued now: scheduled and not yet dispatched. */
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicBoolean warnedBlocking = new AtomicBoolean();
    private volatile FrontDoor door;
    private volatile boolean ownsDoor;
    /** The {@code enqueue} mode's queues and jobs path. */
    private volatile Enqueuing enqueuing;
    /** Removes the reload check of the queues (a shared front door outlives this filter). */
    private volatile Runnable uncheckQueues = () -> {};
    /** Asked by the engine about a request admitted after a delay, before its listeners see the decision. */
    private final Engine.QueueGate queueGate = this::queueOrRefuse;

    /** A filter on the system clock. */
    public RateLimitFilter() {
        this(TimeSource.system(), null);
    }

    /**
     * A filter deciding in a front door the application opened, such as Spring Boot's auto-configuration: {@link #init}
     * reads no parameters, and {@link #destroy()} leaves the front door open, as its owner closes it.
     *
     * @param door the front door of every request
     */
    public RateLimitFilter(FrontDoor door) {
        this(TimeSource.system(), null, MAX_QUEUED, Objects.requireNonNull(door, "door"));
    }

    /** A filter on a given clock: tests assert Retry-After and resets exactly without sleeping. */
    RateLimitFilter(TimeSource time) {
        this(time, null);
    }

    /** A filter on a given clock and scheduler of queued requests (null: a scheduler thread, started when needed). */
    RateLimitFilter(TimeSource time, DelayScheduler scheduler) {
        this(time, scheduler, MAX_QUEUED);
    }

    /** ... and the most requests queued at once (tests: a small bound). */
    RateLimitFilter(TimeSource time, DelayScheduler scheduler, int maxQueued) {
        this(time, scheduler, maxQueued, null);
    }

    private RateLimitFilter(TimeSource time, DelayScheduler scheduler, int maxQueued, FrontDoor given) {
        this.given = given;
        this.time = time;
        this.scheduler = scheduler;
        this.maxQueued = maxQueued;
    }

    private volatile DelayScheduler threaded;
    /**
     * Counted down by {@link #destroy()}: a queued request is then answered 503 rather than dispatched, and one waiting
     * on its own thread at once.
     */
    private final CountDownLatch stopping = new CountDownLatch(1);

    private boolean destroyed() {
        return stopping.getCount() == 0;
    }

    private DelayScheduler scheduler() {
        if (scheduler != null) {
            return scheduler;
        }
        DelayScheduler s = threaded;
        if (s == null) {
            synchronized (this) {
                if (threaded == null) {
                    threaded = DelayScheduler.threaded();
                }
                s = threaded;
            }
        }
        return s;
    }

    /**
     * The parameters this filter reads, before a configuration service such as MicroProfile Config is added. A
     * subclass that derives a setting from elsewhere overrides this and returns {@code declared.withOwn(name, value,
     * source)}, so that the start-up description and errors name the real source ({@link Parameters#withOwn}).
     *
     * @param declared the system properties, the environment and the init-params
     * @return {@code declared} here
     */
    protected Parameters parameters(Parameters declared) {
        return declared;
    }

    @Override
    public void init(FilterConfig config) throws ServletException {
        Map<String, String> own = new HashMap<>();
        for (String name : Collections.list(config.getInitParameterNames())) {
            own.put(name, config.getInitParameter(name));
        }
        String name = config.getFilterName();
        String jobsPath = own.remove(Enqueuing.JOBS_PATH_PARAMETER);       // the filter's own, not the front door's
        Integrations runtime = given == null ? Integrations.find() : Integrations.of(List.of());
        RuntimeIntegration integration = runtime.integration();
        try {
            FrontDoor shared = given != null ? given : integration == null ? null : integration.sharedFrontDoor();
            if (shared != null) {
                door = shared;
                enqueuing(config.getServletContext(), jobsPath);
                config.getServletContext().setAttribute(contextAttribute(name), door);
                LOG.log(Level.INFO, "Sluice rate limiting (filter " + name + "): " + shared.rules().summary()
                        + (given != null ? " from the application's front door" : " from the application's produced"
                        + " SluiceConfig") + (own.isEmpty() ? "" : "; init-params " + own.keySet() + " are ignored"));
                return;
            }
            Parameters parameters = runtime.addSources(parameters(Parameters.of(
                    own.getOrDefault("config-prefix", Parameters.DEFAULT_PREFIX).trim(), own, "init-param")));
            SluiceConfig sluice = SluiceConfig.load(parameters, value -> rulesSource(config.getServletContext(), value),
                    integration == null ? Map.of() : integration.keyResolvers());
            door = integration == null ? FrontDoor.open(sluice, time)
                    : integration.open(sluice, time);
            ownsDoor = true;
            try {
                enqueuing(config.getServletContext(), jobsPath);
            } catch (RuntimeException e) {
                door.close();
                throw e;
            }
            config.getServletContext().setAttribute(contextAttribute(name), door);
            LOG.log(Level.INFO, "Sluice rate limiting (filter " + name + "): " + door.rules().summary() + "\n  "
                    + String.join("\n  ", integration == null ? sluice.description()
                            : integration.description(sluice)));
        } catch (ConfigException e) {
            throw new ServletException("Sluice rate limiting (filter " + name + "): invalid configuration: "
                    + e.getMessage(), e);
        } catch (RuntimeException e) {             // a value that got past validation: still said, not a bare trace
            throw new ServletException("Sluice rate limiting (filter " + name + "): could not start: " + e, e);
        }
    }

    /**
     * Checks that the queues the rules in force name are registered, now and on every reload of the rules.
     *
     * @throws ConfigException naming the rule and queue missing
     */
    private void enqueuing(ServletContext context, String jobsPath) {
        Enqueuing e = new Enqueuing(context, Enqueuing.jobsPath(jobsPath));
        door.whileRulesSteady(() -> {
            e.check(door.rules());
            uncheckQueues = door.checkReloads(e::check);
        });
        enqueuing = e;
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain) throws IOException, ServletException {
        if (!(req instanceof HttpServletRequest request) || !(res instanceof HttpServletResponse response)
                || request.getDispatcherType() != DispatcherType.REQUEST) {
            chain.doFilter(req, res);          // forwards, includes, error pages and async dispatches were counted already
            return;
        }
        ServletRequestView view = new ServletRequestView(request, response);
        Decision decision = door.check(view, queueGate);       // refused to queue when full: a denial from then on
        boolean queues = decision.allowed() && decision.delayMicros() > 0 && request.isAsyncSupported();
        request.setAttribute(FrontDoor.DECISION_ATTRIBUTE, decision);
        boolean jobs = enqueuing.jobsRequest(request, door::rules);
        if (decision.allowed()) {
            door.allowedHeaders(decision, view, view);       // the headers straight onto the response, no Reply
        } else {
            String queue = jobs ? null : Enqueuing.queueFor(decision, door.rules());
            if (queue != null) {
                enqueuing.enqueue(request, response, queue, door.reply(decision, view));
            } else {
                ReplyWriter.send(response, door.reply(decision, view));
            }
            return;
        }
        if (jobs && decision.delayMicros() == 0) {
            try {
                enqueuing.answerJob(request, response);       // an outcome: counted as any request, then answered here
            } finally {
                door.completed(view, decision, response.getStatus());
            }
            return;
        }
        if (decision.delayMicros() > 0) {
            if (queues) {
                queue(request, response, view, decision);
                return;
            }
            if (!waitOnThisThread(decision.delayMicros())) {       // destroyed or interrupted meanwhile
                try {
                    unavailable(response);          // writes a body: fails when the client is gone
                } finally {
                    door.completed(view, decision, HttpServletResponse.SC_SERVICE_UNAVAILABLE);   // as a queued one's
                }
                return;
            }
        }
        passOn(request, response, chain, view, decision);
    }

    /**
     * Lets an admitted request through {@code chain}; its leases are released and its outcome charged when the
     * response completes: now, or when its async cycle completes.
     */
    private void passOn(HttpServletRequest request, HttpServletResponse response, FilterChain chain,
            ServletRequestView view, Decision decision) throws IOException, ServletException {
        boolean releasedLater = false;
        int failedStatus = 0;
        try {
            chain.doFilter(request, response);
            releasedLater = request.isAsyncStarted()
                    && LeaseRelease.onCompletion(request.getAsyncContext(), door, view, decision);
        } catch (IOException | ServletException | RuntimeException | Error e) {
            failedStatus = HttpServletResponse.SC_INTERNAL_SERVER_ERROR;   // what the container will answer
            throw e;
        } finally {
            if (!releasedLater) {
                door.completed(view, decision, failedStatus != 0 ? failedStatus : response.getStatus());
            }
        }
    }

    /**
     * Puts a queued request in asynchronous mode and dispatches it to its servlet when its delay has passed; its
     * leases are released when that async cycle completes.
     */
    private void queue(HttpServletRequest request, HttpServletResponse response, ServletRequestView view,
            Decision decision) {
        queued.incrementAndGet();
        try {
            AsyncContext async = request.startAsync(request, response);
            async.setTimeout(decision.delayMicros() / 1_000 + QUEUED_TIMEOUT_MILLIS);
            if (!LeaseRelease.onCompletion(async, door, view, decision)) {
                door.release(decision);
            }
            scheduler().schedule(() -> {
                queued.decrementAndGet();
                try {
                    if (destroyed()) {
                        unavailable(async);
                    } else {
                        async.dispatch();
                    }
                } catch (IllegalStateException clientGone) {
                    // the client went away, or the container timed the cycle out: its listeners released the leases
                }
            }, decision.delayMicros());
        } catch (RuntimeException notQueued) {          // not counted as waiting when it is not (a filter destroyed)
            queued.decrementAndGet();
            throw notQueued;
        }
    }

    /**
     * Answers a queued request of a destroyed filter: 503 ({@link FrontDoor#shuttingDown}), and its async cycle
     * completed (its listeners release its leases). It is not dispatched: containers destroy filters after their
     * servlets or once the application is no longer mapped, where a dispatch fails (Tomcat:
     * {@code UnsupportedOperationException}, and the request waits for its async timeout) or reaches a stopped servlet
     * (WildFly, GlassFish, Liberty: an error logged, 500 or 503, or the connection dropped).
     */
    private void unavailable(AsyncContext async) {
        try {
            if (async.getResponse() instanceof HttpServletResponse r) {
                unavailable(r);
            }
        } catch (IOException clientGone) {
            // the body could not be written: the cycle is completed all the same
        }
        async.complete();
    }

    /**
     * The answer of a destroyed filter to a request it held: 503 with {@code Retry-After}, {@code Cache-Control:
     * no-store} and the configured body ({@link FrontDoor#shuttingDown}), as its other refusals.
     */
    private void unavailable(HttpServletResponse response) throws IOException {
        if (!response.isCommitted()) {
            ReplyWriter.send(response, door.shuttingDown());
        }
    }

    /**
     * @return {@code admitted}, to be queued; or, when it would be queued (the chain is async-supported) and
     *     {@link #maxQueued} requests wait already, its refusal ({@link #queueFull}). Decided before the engine's
     *     listeners see the decision, so that metrics and the CDI {@code RateLimitedEvent} count the 429 the client
     *     gets, once, and the engine releases the leases {@code admitted} held (a refused request counts as no
     *     response of its own).
     */
    private Decision queueOrRefuse(RequestView view, Decision admitted) {
        // a bound, not a reservation: requests deciding at the same instant may each find the last place free
        return view instanceof ServletRequestView servlet && servlet.asyncSupported() && queued.get() >= maxQueued
                ? queueFull(admitted) : admitted;
    }

    /**
     * A request admitted after a delay while {@link #maxQueued} wait already: denied by the enforced rule that queued
     * it, with its delay as the retry time. The store has already given it its place in the bucket, which is not given
     * back: a client that comes back then waits about one interval more, or finds a short queue. A shadow rule is never
     * that rule: its queue holds nobody ({@link Decision#delayMicros()}), and its denial would deny nothing (the request
     * would pass without the leases its admission took, which the engine releases on a refusal).
     */
    static Decision queueFull(Decision admitted) {
        List<RuleOutcome> outcomes = new ArrayList<>(admitted.outcomes());
        int at = 0;
        for (int i = 0; i < outcomes.size(); i++) {
            RuleOutcome o = outcomes.get(i);
            if (!o.rule().shadow() && o.outcome().allowed() && o.outcome().delayMicros() == admitted.delayMicros()) {
                at = i;                           // the enforced rule whose turn is furthest away
                break;
            }
        }
        RuleOutcome queuing = outcomes.get(at);
        Outcome o = queuing.outcome();
        RuleOutcome refused = new RuleOutcome(queuing.rule(), queuing.policy(),
                Outcome.deny(o.limit(), o.remaining(), o.resetAfterMicros(), admitted.delayMicros()), queuing.source());
        // every other rule keeps its outcome (the store charged them): listeners and the shadow report see the whole
        // request, and the refusal binds, being its only enforced denial
        outcomes.set(at, refused);
        return Decision.of(outcomes, List.of(), admitted.atMicros());
    }

    /** @return the requests queued now (tests) */
    int queued() {
        return queued.get();
    }

    /** How long a dispatched queued request may take before the container times its async cycle out: {@value} ms. */
    static final long QUEUED_TIMEOUT_MILLIS = 60_000;

    /**
     * Waits {@code delayMicros} on the request's thread.
     *
     * @return false when the wait was cut short: the filter destroyed, or the thread interrupted (a container stopping
     *     its threads; the interrupt is kept). The request is then answered 503 as a destroyed filter's queued ones are.
     */
    private boolean waitOnThisThread(long delayMicros) {
        if (warnedBlocking.compareAndSet(false, true)) {
            LOG.log(Level.WARNING, "Sluice rate limiting: a queued request waits on its request thread because the"
                    + " filter chain is not async-supported; declare <async-supported>true</async-supported> on the"
                    + " filters and servlets so that no thread waits");
        }
        try {
            return !stopping.await(delayMicros, TimeUnit.MICROSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** {@code /WEB-INF/...}: inside the WAR (reloadable when the WAR is exploded); anything else: a file path. */
    private static RulesSource rulesSource(ServletContext context, String value) {
        return RulesSource.inWebApp(context::getRealPath, context::getResource, value);
    }

    /** @return the servlet context attribute holding the front door of the filter named {@code filterName} */
    static String contextAttribute(String filterName) {
        return RateLimitFilter.class.getName() + "." + filterName;
    }

    /** @return the front door this filter delegates to (tests read its store and rules) */
    FrontDoor frontDoor() {
        return door;
    }

    @Override
    public void destroy() {
        uncheckQueues.run();
        stopping.countDown();           // first: the queued requests run below, or at once, are answered, not dispatched
        DelayScheduler s;
        synchronized (this) {           // as scheduler(): a request on its way must not start a thread after this
            s = threaded;
            if (s == null) {
                threaded = DelayScheduler.immediate();
            }
        }
        if (s != null) {
            s.close();                  // answers the requests still queued (503), and stops the thread
        }
        if (door != null && ownsDoor) {
            door.close();     // a shared front door belongs to CDI, which closes it when the application stops
        }
    }
}
